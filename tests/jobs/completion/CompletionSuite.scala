package bankops.jobs.completion

import cats.effect.IO

import bankops.support.{IOSuite, Repo, TestShell}

/** The generated scripts loaded in the real shells: bash completes jobs, subcommands, flags and their values. */
class CompletionSuite extends IOSuite {

  private def script(shell: String): IO[os.Path] =
    TestShell.run(List("completion", shell), Map.empty, Repo.root).map { r =>
      assertEquals(r.code, 0, r.err)
      val f = os.temp(r.out, suffix = s".$shell")
      f
    }

  private def installed(shell: String): Boolean = scala.util.Try(os.proc("which", shell).call(check = false).exitCode == 0).getOrElse(false)

  /** What bash's completion function offers for the words typed so far (the last one being completed). */
  private def bash(file: os.Path, words: String*): List[String] = {
    val array = words.map(w => "'" + w.replace("'", "'\\''") + "'").mkString(" ")
    val program = s"source '$file'; COMP_WORDS=($array); COMP_CWORD=${words.size - 1}; _bankops; printf '%s\\n' \"$${COMPREPLY[@]}\""
    os.proc("bash", "--norc", "-c", program).call(cwd = os.temp.dir()).out.lines().toList.filter(_.nonEmpty)
  }

  test("bash: job names, subcommands, flags, listed values and topic names") {
    script("bash").map { f =>
      assertEquals(bash(f, "bankops", "con"), List("config", "context"))
      assertEquals(bash(f, "bankops", "completion", ""), List("bash", "zsh", "fish"))
      assertEquals(bash(f, "bankops", "context", ""), List("add", "list", "use", "show", "remove"))
      assert(Set("--topic", "--to").subsetOf(bash(f, "bankops", "inspect", "--to").toSet), bash(f, "bankops", "inspect", "--to"))
      assertEquals(bash(f, "bankops", "config", "show", "--output", ""), List("table", "json"))
      assertEquals(bash(f, "bankops", "inspect", "-o", "p"), List("pretty"))
      assert(bash(f, "bankops", "inspect", "--topic", "").contains("commands.dlq"))
      assert(bash(f, "bankops", "inspect", "--topic", "commands", "--li").contains("--limit"))
      assert(bash(f, "bankops", "context", "add", "x", "--db-password-").toSet == Set("--db-password-env", "--db-password-file"))
    }
  }

  test("fish and zsh: generated from the same tree (their shells are not needed to read what they hold)") {
    val tree = bankops.base.Cli.tree(bankops.Jobs.all)
    val fish = CompletionScripts.fish(tree, List("heartbeat", "commands"))
    assert(fish.contains("""complete -c bankops -n '__bankops_at \'bankops inspect\'' -l 'output' -s 'o' -x -a 'json pretty avro-json'"""), fish)
    assert(fish.contains("""complete -c bankops -n '__bankops_at \'bankops inspect\'' -l 'topic' -x -a 'heartbeat commands'"""))
    assert(fish.contains("""complete -c bankops -n '__bankops_at \'bankops\'' -a 'context'"""))
    val zsh = CompletionScripts.zsh(tree, Nil)
    assert(zsh.contains("    'bankops context') echo 'add list use show remove' ;;"), zsh)
    assert(zsh.contains("compdef _bankops bankops"))
  }

  test("zsh: the script parses") {
    assume(installed("zsh"), "zsh is not installed here")
    script("zsh").map(f => assertEquals(os.proc("zsh", "-n", f).call(check = false).exitCode, 0))
  }

  test("fish: the script parses") {
    assume(installed("fish"), "fish is not installed here")
    script("fish").map(f => assertEquals(os.proc("fish", "-n", f).call(check = false).exitCode, 0))
  }

  test("an unknown shell is exit 2") {
    TestShell.run(List("completion", "tcsh"), Map.empty, Repo.root).map { r =>
      assertEquals(r.code, 2)
      assert(r.err.contains("shell must be bash, zsh or fish, not 'tcsh'"), r.err)
    }
  }
}

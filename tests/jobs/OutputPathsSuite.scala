package bankops.jobs

import cats.syntax.all._

import bankops.support.{IOSuite, TestShell}

/** The rule for files bankops writes (docs/guide/configuration.md, Files bankops writes) through the CLI, for every job that writes a file:
  * a path that is not a new name or (with --overwrite) a regular file is refused with exit 2 naming flag and path,
  * before any service is asked (the addresses here answer nothing), and the path is left exactly as it was.
  */
class OutputPathsSuite extends IOSuite {
  // Nothing listens here: a job that got past the refusal would fail with exit 3, not 2.
  private val nowhere = List("--bootstrap-server", "127.0.0.1:1", "--registry-url", "http://127.0.0.1:1", "--timeout", "2")

  private def replay(path: os.Path, extra: String*) =
    List("replay", "--from-topic", "commands", "--to-file", path.toString) ++ extra ++ nowhere
  private def groups(path: os.Path, extra: String*) =
    List("groups", "reset", "some-group", "--topic", "commands", "--to", "earliest", "--save-to", path.toString) ++ extra ++ nowhere

  test("directory, symlink, device, existing file without --overwrite, missing directory: exit 2 naming the path; nothing changed") {
    val d = os.temp.dir()
    val sub = d / "sub"
    os.makeDir(sub)
    os.write(sub / "inside", "x")
    val existing = d / "existing.jsonl"
    os.write(existing, "kept")
    val link = d / "link"
    os.symlink(link, existing)
    val rows: List[(String, os.Path, String)] = List(
      ("a directory", sub, "is a directory"),
      ("a symlink", link, "is a symbolic link"),
      ("a device", os.Path("/dev/null"), "is a device, pipe or socket"),
      ("an existing file", existing, "already exists: --overwrite replaces it"),
      ("a missing directory", d / "no" / "such.jsonl", "no such directory")
    )
    val runs = rows.flatMap { case (what, path, fragment) =>
      List((s"replay --to-file onto $what", replay(path), "--to-file", path, fragment),
        (s"groups reset --save-to onto $what", groups(path), "--save-to", path, fragment))
    }
    runs.traverse { case (name, args, flag, path, fragment) => TestShell.run(args).map(r => (name, flag, path, fragment, r)) }.map { results =>
      assertEquals(results.size, 10)
      results.foreach { case (name, flag, path, fragment, r) =>
        assertEquals(r.code, 2, s"$name: ${r.err}")
        assert(r.err.contains(s"$flag $path") && r.err.contains(fragment), s"$name: ${r.err}")
        assert(!r.err.contains("unexpected error"), s"$name: ${r.err}")
      }
      assert(os.isDir(sub) && os.read(sub / "inside") == "x", "the directory is untouched")
      assert(os.isLink(link) && os.read(existing) == "kept", "the link and the file are untouched")
      assertEquals(os.list(d).map(_.last).sorted.toList, List("existing.jsonl", "link", "sub"), "nothing partial left")
    }
  }

  test("with --overwrite an existing regular file passes the check: the run gets as far as the (absent) cluster, exit 3, file kept") {
    val d = os.temp.dir()
    val existing = d / "existing.jsonl"
    os.write(existing, "kept")
    // From the checkout, whose schemas/topology.json replay loads after the check.
    List(replay(existing, "--overwrite"), groups(existing, "--overwrite")).traverse(TestShell.run(_, Map.empty, bankops.support.Repo.root)).map {
      results =>
        results.foreach { r =>
          assertEquals(r.code, 3, r.err)
          assert(!r.err.contains("already exists"), r.err)
        }
        assertEquals(os.read(existing), "kept")
        assertEquals(os.list(d).map(_.last).toList, List("existing.jsonl"))
    }
  }
}

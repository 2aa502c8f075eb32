package bankops.jobs

import cats.effect.IO
import cats.syntax.all._

import java.net.ServerSocket
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.duration._

import bankops.services.registry.RegistryClient
import bankops.support.{CliProcess, IOSuite, Repo, SandboxFixture, Setup, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

/** The fourth hostile-input pass, one row per case: secrets that must stay secret, JSON read strictly and within bounds,
  * files named as what they are, flag combinations refused while parsing, errors naming the true cause and source. Each
  * row asserts its exit code, the one line's cause, that no secret is shown, and that nothing changed: no record on the
  * bank's topics, no subject on the registry, no file written.
  */
class HostileInputSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  /** `lines`: how many lines stderr holds (None: the row's cause is enough, other lines may come with it). */
  private final case class Row(name: String, args: List[String], code: Int, fragment: String, env: Map[String, String] = Map.empty,
                               absent: List[os.Path] = Nil, lines: Option[Int] = Some(1), stdin: String = "")

  private val dir = os.temp.dir(prefix = "hostile-input")
  private val secret = "S3CRETvalue-hunter2"
  private val deep = "[" * 200000

  private def text(name: String, content: String): os.Path = { val f = dir / os.RelPath(name); os.write.over(f, content, createFolders = true); f }

  /** A config directory of the row's own holding `contexts` as contexts.json (or a link to it, outside the directory). */
  private def xdg(name: String, contexts: String, linked: Boolean = false): Map[String, String] = {
    val home = dir / name
    val file = home / "bankops" / "contexts.json"
    if (linked) {
      os.makeDir.all(file / os.up)
      java.nio.file.Files.createSymbolicLink(file.toNIO, text(s"$name-target.json", contexts).toNIO)
    } else os.write.over(file, contexts, createFolders = true)
    Map("XDG_CONFIG_HOME" -> home.toString)
  }

  private def topologyWith(name: String)(change: String => String): os.Path = {
    val f = dir / name / "topology.json"
    os.makeDir.all(f / os.up)
    os.list(Repo.root / "schemas").filter(_.ext == "avsc").foreach(a => os.copy.over(a, f / os.up / a.last))
    os.write.over(f, change(os.read(Repo.root / "schemas" / "topology.json")))
    f
  }

  private def rows: List[Row] = {
    val newContexts = dir / "new-xdg"
    val created = newContexts / "bankops" / "contexts.json"
    val big = dir / "big.json"
    // Sparse: 65 MiB that take no disk.
    val raf = new java.io.RandomAccessFile(big.toIO, "rw"); raf.setLength(65L * 1024 * 1024); raf.close()
    val pwDir = dir / "pwdir" / "pw"
    os.makeDir.all(pwDir)
    val environment = SandboxFixture.sandboxSettings.topologyEnvironment.toList.flatMap(e => List("--environment", e))
    val apicurioRoot = s"http://localhost:${SandboxFixture.sandboxSettings.registryPort}"
    val beat = """{"record":"Heartbeat","value":{"beat":1}}"""
    List(
      // JSON, strictly and within bounds, wherever it comes from.
      Row("produce: a key twice in --value", List("produce", "--topic", "heartbeat", "--value", """{"beat":5,"beat":-7}"""), 2,
        "--value: key 'beat' appears twice in one object (line 1, column"),
      Row("produce: deep nesting in --value @FILE", List("produce", "--topic", "heartbeat", "--value", s"@${text("deep.json", deep)}"), 2,
        s"${dir / "deep.json"}: nested deeper than 100 levels, the limit of JSON input"),
      Row("produce: deep nesting on stdin", List("produce", "--topic", "heartbeat"), 2, "stdin:1: nested deeper than 100 levels", stdin = deep),
      Row("produce: a 65 MiB --value @FILE", List("produce", "--topic", "heartbeat", "--value", s"@$big"), 2,
        s"--value @$big is larger than 64 MiB, the limit of a file read whole"),
      Row("replay: deep nesting in a file",
        List("replay", "--from-file", text("deep.jsonl", beat + "\n" + deep + "\n").toString,
          "--to-topic", "heartbeat"), 2, "deep.jsonl:2: nested deeper than 100 levels", lines = Some(2)),
      Row("replay: a top-level key twice in a line",
        List("replay", "--from-file",
          text("twice.jsonl", """{"record":"Heartbeat","key":"a","key":"b","value":{"beat":1}}""" + "\n").toString, "--to-topic", "heartbeat"),
        2, "twice.jsonl:1: key 'key' appears twice in one object", lines = Some(2)),
      Row("replay: a value's key twice in a line",
        List("replay", "--from-file",
          text("twice-value.jsonl", """{"record":"Heartbeat","value":{"beat":1,"beat":2}}""" + "\n").toString, "--to-topic", "heartbeat"),
        2, "twice-value.jsonl:1: key 'beat' appears twice in one object", lines = Some(2)),
      Row("a topology nested deeply", List("topics", "plan", "--topology", text("deep-topology/topology.json", deep).toString), 2,
        "topology.json: nested deeper than 100 levels"),
      // Files named as what they are.
      Row("produce: --value @/dev/zero", List("produce", "--topic", "heartbeat", "--value", "@/dev/zero"), 2,
        "--value @/dev/zero is not a regular file (a character device)"),
      Row("produce: --value @DIR", List("produce", "--topic", "heartbeat", "--value", s"@$dir"), 2, s"--value @$dir is a directory, not a file"),
      Row("schemas diff: a .avsc that is a directory",
        List("schemas", "diff", "heartbeat-nl.openweb.data.Heartbeat",
          { os.makeDir.all(dir / "dir.avsc"); (dir / "dir.avsc").toString }), 2, s"${dir / "dir.avsc"} is a directory, not a file"),
      Row("apply: a SCRAM password file that is a directory",
        List("apply", "--topology",
          topologyWith("pw-dir")(_.replaceFirst("\"users\"\\s*:\\s*\\{",
              s"""\"users\": { \"pwdir\": { \"password\": { \"file\": \"$pwDir\" } },""")).toString) ++ environment,
        2, s"refused: users.pwdir: password file of SCRAM user pwdir: $pwDir is a directory, not a file", lines = None),
      // Secrets.
      Row("context add: a password after a newline in --db-url",
        List("context", "add", "p1", "--db-url", s"jdbc:postgresql://db:5432/bank?ssl=true\n&password=$secret"), 2,
        "--db-url holds a control character (at character 40); a context keeps none", env = Map("XDG_CONFIG_HOME" -> newContexts.toString),
        absent = List(created)),
      Row("context add: a password parameter whose name is percent-encoded",
        List("context", "add", "p1", "--db-url", s"jdbc:postgresql://db/bank?pass%77ord=$secret"), 2,
        "--db-url holds a password (password): a context keeps no secret in clear", env = Map("XDG_CONFIG_HOME" -> newContexts.toString),
        absent = List(created)),
      Row("a contexts file linked to a file out of its directory", List("inspect", "--topic", "heartbeat"), 2,
        "contexts.json is a symbolic link out of its directory", env = xdg("linked", s"$secret\n", linked = true)),
      Row("a contexts file whose syntax error would quote a secret", List("inspect", "--topic", "heartbeat"), 2,
        "contexts.json: not a contexts file (not JSON (line 1, column", env = xdg("quoting", s"""{"contexts": $secret}""")),
      Row("a contexts file whose wrong value would be quoted", List("inspect", "--topic", "heartbeat"), 2,
        "contexts.json: not a contexts file (unexpected value at .contexts.c.dbUser)",
        env = xdg("value", s"""{"current": "c", "contexts": {"c": {"dbUser": {"x": "$secret"}}}}""")),
      Row("a contexts file nested deeply", List("inspect", "--topic", "heartbeat"), 2, "nested deeper than 100 levels",
        env = xdg("deep", deep)),
      Row("a context's command-config that is missing is blamed on the context", List("inspect", "--topic", "heartbeat", "--context", "c"), 2,
        s"context c's command-config ${dir / "none.properties"}: no such file",
        env = xdg("cc", s"""{"contexts": {"c": {"commandConfig": "${dir / "none.properties"}"}}}""")),
      Row("a hand-written context with a password in its URL is refused when used", List("inspect", "--topic", "heartbeat", "--context", "c"),
        2, "context c: --db-url holds a password (password)",
        env = xdg("clear", s"""{"contexts": {"c": {"dbUrl": "jdbc:postgresql://db/bank?password=$secret"}}}""")),
      // Flags refused while parsing; versions named as versions.
      Row("inspect: --partition with --all-partitions", List("inspect", "--topic", "heartbeat", "--key", "k", "--partition", "0", "--all-partitions"),
        2, "--partition and --all-partitions exclude each other"),
      Row("replay: --from-file with --to-file",
        List("replay", "--from-file", text("f.jsonl", beat).toString, "--to-file",
          (dir / "copy.jsonl").toString), 2, "--from-file with --to-file: copy the file instead", absent = List(dir / "copy.jsonl")),
      Row("schemas show: a version that is not one", List("schemas", "show", "heartbeat-nl.openweb.data.Heartbeat@abc"), 2,
        "heartbeat-nl.openweb.data.Heartbeat@abc: version 'abc': expected a positive number or latest"),
      Row("schemas show: nothing after @", List("schemas", "show", "heartbeat-nl.openweb.data.Heartbeat@"), 2, "no version after '@'"),
      // Dry runs validate what a real run would.
      Row("replay --dry-run topic to topic with the registry's root",
        List("replay", "--from-topic", "heartbeat", "--limit", "5",
          "--to-topic", "commands", "--dry-run", "--registry-url", apicurioRoot), 3, s"no Confluent-compatible registry at $apicurioRoot"),
      Row("apply --strict: a grant to every principal is refused, nothing changes",
        List("apply", "--strict", "--topology",
          topologyWith("star")(_.replaceFirst("\"access\"\\s*:\\s*\\{",
              """"access": { "User:*": [ { "role": "consumer", "topics": ["heartbeat"], "group": "g" } ],""")).toString) ++ environment,
        2, "refused (--strict): access.User:*: grants every principal", lines = None)
    )
  }

  private def ends: IO[Map[String, Long]] = List("heartbeat", "commands").traverse(t => SandboxFixture.written(t).map(t -> _)).map(_.toMap)

  /** The bank's subjects: the ones a row could register (other suites register their own meanwhile). */
  private def subjects: IO[List[String]] =
    SandboxFixture.settings.flatMap(s => RegistryClient.resource(s, 30.seconds).use(_.subjects))
      .map(_.filter(s => List("heartbeat-", "commands-", "command_feedback-", "balance_changed-").exists(s.startsWith)))

  test("every hostile input: its exit code, one line naming the cause and source, no secret shown, nothing changed".tag(OnSandbox.Alone)) {
    for {
      _ <- SandboxFixture.connection
      // Heartbeats for the dry run to read (this shard's sandbox may have none yet): it resolves their schema ids.
      _ <- Setup.cli("five heartbeats", "heartbeat", "--count", "5", "--rate", "100")
      table = rows
      before <- (ends, subjects).tupled
      results <- table.traverse(r => TestShell.run(r.args, SandboxFixture.env ++ r.env, Repo.root, r.stdin).map(r -> _))
      after <- (ends, subjects).tupled
    } yield {
      val failures = results.flatMap { case (row, res) =>
        val lines = res.err.linesIterator.filter(_.nonEmpty).toList
        List(
          Option.when(res.code != row.code)(s"exit ${res.code}, expected ${row.code}"),
          Option.when(!res.err.contains(row.fragment))(s"no '${row.fragment}'"),
          Option.when(res.err.contains("unexpected error") || res.err.contains("\tat "))("an unexpected error or a stack trace"),
          row.lines.filter(_ != lines.size).map(n => s"${lines.size} lines, expected $n"),
          Option.when((res.err + res.out).contains(secret))("the secret is shown"),
          row.absent.find(os.exists(_)).map(p => s"$p was written")
        ).flatten.map(problem => s"${row.name}: $problem\n${res.err.take(1500)}")
      }
      assertEquals(failures, Nil, failures.mkString("\n\n"))
      assertEquals(after, before, "no record sent to the bank's topics, no subject registered")
    }
  }

  /** A heartbeat topic of the test's own: what other tests send to the bank's meanwhile is not counted. */
  private def ownHeartbeats(name: String): IO[String] = {
    val topic = TopologyFixture.unique(name)
    val file = TopologyFiles.write(TopologyFiles.topology((topic, 1, Map.empty, "Heartbeat", "time")))
    Setup.cli(s"apply $topic", "apply", "--topology", file.toString).as(topic)
  }

  test("produce: a line of stdin that is not UTF-8 is named by its own number, and the 1,000 lines before it were sent") {
    val lines = (1 to 1000).map(i => s"""{"beat":$i}\n""").mkString.getBytes("UTF-8") ++ Array[Byte]('{', 0xff.toByte, '}', '\n') ++
      """{"beat":1}""".getBytes("UTF-8")
    for {
      topic <- ownHeartbeats("not-utf8")
      r <- TestShell.run(List("produce", "--topic", topic, "--record", "Heartbeat"), SandboxFixture.env, Repo.root, stdinBytes = Some(lines))
      sent <- SandboxFixture.written(topic)
    } yield {
      assertEquals((r.code, r.err.trim), (2, "bankops: stdin:1001: not UTF-8 text; the 1000 record(s) before it were sent, nothing after it"))
      assertEquals(sent, 1000L)
    }
  }

  test("produce: Ctrl-C while the registry has not answered says nothing was sent, exit 130") {
    // A registry that takes the connection and never answers: the run waits on it when Ctrl-C comes.
    val accepted = new AtomicInteger()
    val silent = new ServerSocket(0)
    val held = new java.util.concurrent.CopyOnWriteArrayList[java.net.Socket]()
    val acceptor = new Thread(() => scala.util.Try(while (true) { held.add(silent.accept()); accepted.incrementAndGet() }): Unit)
    acceptor.setDaemon(true); acceptor.start()
    (for {
      topic <- ownHeartbeats("silent-registry")
      p <- CliProcess.start("produce", "--topic", topic, "--record", "Heartbeat", "--value", """{"beat":1}""", "--registry-url",
        s"http://127.0.0.1:${silent.getLocalPort}")
      _ <- p.await(60.seconds, "connection to the silent registry")(IO(accepted.get > 0))
      code <- p.interrupt
      sent <- SandboxFixture.written(topic)
    } yield {
      val err = os.read(p.err)
      assertEquals((code, err.trim), (130, "produce: interrupted (Ctrl-C): 0 records acknowledged, nothing sent"))
      assertEquals(sent, 0L)
    }).guarantee(IO { silent.close(); held.forEach(_.close()) })
  }

  test("sandbox env --help names --as with its metavar, and no short options made of it") {
    TestShell.run(List("sandbox", "env", "--help"), SandboxFixture.env, Repo.root).map { r =>
      val help = r.out + r.err
      assert(help.contains("--as <NAME>"), help)
      assert(!help.contains("-M") && !help.contains("-N,"), help)
    }
  }
}

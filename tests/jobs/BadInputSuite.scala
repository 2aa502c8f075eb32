package bankops.jobs

import cats.effect.IO

import scala.concurrent.duration._

import bankops.support.{HttpStub, IOSuite, Repo, SandboxFixture, TestShell}
import bankops.support.OnSandbox

/** One row per class of bad input an operator can fix, each run through the CLI against the sandbox,
  * with the exit code, a fragment of the one line expected, and that nothing was written where a topic or file is
  * involved. Never "unexpected error" (that is for bugs), never a stack trace or a library log line without --verbose,
  * never a secret.
  */
class BadInputSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  /** `lines`: a file's checks name each bad line (up to 10), then say nothing was sent. */
  private final case class Row(name: String, args: List[String], code: Int, fragment: String, env: Map[String, String] = Map.empty,
                               absent: List[os.Path] = Nil, lines: Int = 1, stdin: String = "")

  private val dir = os.temp.dir(prefix = "bad-input")
  private val sandboxEnv = SandboxFixture.env

  /** The sandbox's client properties with some keys replaced (or added), as a new command-config file. */
  private def config(name: String, changes: (String, String)*): String = {
    val kept = os.read.lines(SandboxFixture.layout.clientProperties).filterNot(l => changes.exists { case (k, _) => l.startsWith(s"$k=") })
    val file = dir / name
    os.write.over(file, (kept ++ changes.map { case (k, v) => s"$k=$v" }).mkString("", "\n", "\n"))
    file.toString
  }

  private def file(name: String, bytes: Array[Byte]): String = { val f = dir / name; os.write.over(f, bytes); f.toString }
  private def text(name: String, content: String): String = file(name, content.getBytes("UTF-8"))

  private val secret = "Sup3rSecretPassw0rd"

  /** A config directory of the suite's own, for the context rows. */
  private val xdg = Map("XDG_CONFIG_HOME" -> (dir / "xdg").toString)
  private val contexts = dir / "xdg" / "bankops" / "contexts.json"

  private def rows(webServer: Int): List[Row] = {
    val truststore = SandboxFixture.layout.dir / "tls" / "truststore.p12"
    val line = """{"record":"Heartbeat","key":null,"value":{"beat":1}}"""
    val topology = os.read(Repo.root / "schemas" / "topology.json")
    val dupTopology = dir / "dup" / "topology.json"
    os.makeDir.all(dupTopology / os.up)
    os.list(Repo.root / "schemas").filter(_.ext == "avsc").foreach(f => os.copy.over(f, dupTopology / os.up / f.last))
    // The first topic's partitions given twice: JSON parsers keep the last one silently.
    os.write.over(dupTopology, topology.replaceFirst("\"partitions\"\\s*:\\s*(\\d+)", "\"partitions\": 1, \"partitions\": $1"))
    val unknownConfig = dir / "cfg" / "topology.json"
    os.makeDir.all(unknownConfig / os.up)
    os.list(Repo.root / "schemas").filter(_.ext == "avsc").foreach(f => os.copy.over(f, unknownConfig / os.up / f.last))
    os.write.over(unknownConfig, topology.replaceFirst("\"config\"\\s*:\\s*\\{", "\"config\": { \"no.such.setting\": \"1\","))
    // The bank's topology with a fault of its access or users section.
    def variant(name: String)(change: String => String): os.Path = {
      val f = dir / name / "topology.json"
      os.makeDir.all(f / os.up)
      os.list(Repo.root / "schemas").filter(_.ext == "avsc").foreach(a => os.copy.over(a, f / os.up / a.last))
      os.write.over(f, change(topology))
      f
    }
    val unknownRole = variant("role")(_.replaceFirst("\"role\"\\s*:\\s*\"consumer\"", "\"role\": \"writer\""))
    val noPassword = variant("nopw")(_.replaceFirst("\"users\"\\s*:\\s*\\{",
        "\"users\": { \"nopw\": { \"password\": { \"env\": \"BANKOPS_TEST_NOPW_PASSWORD\" } },"))
    val environment = SandboxFixture.sandboxSettings.topologyEnvironment.toList.flatMap(e => List("--environment", e))
    val toFile = dir / "out.jsonl"
    val badContexts = dir / "bad-xdg"
    os.write.over(badContexts / "bankops" / "contexts.json", "{oops", createFolders = true)
    val apicurioRoot = s"http://localhost:${SandboxFixture.sandboxSettings.registryPort}"
    List(
      Row("wrong truststore password",
        List("inspect", "--topic", "heartbeat", "--command-config", config("wrong-trust.properties", "ssl.truststore.password" -> secret)),
        2, "ssl.truststore.password does not open"),
      Row("wrong keystore password",
        List("inspect", "--topic", "heartbeat", "--command-config", config("wrong-key.properties", "ssl.keystore.password" -> secret)),
        2, "ssl.keystore.password does not open"),
      Row("a store path that is a directory",
        List("inspect", "--topic", "heartbeat", "--command-config", config("dir-store.properties", "ssl.truststore.location" -> dir.toString)),
        2, s"ssl.truststore.location $dir is a directory"),
      Row("a file that is no key store",
        List("inspect", "--topic", "heartbeat", "--command-config",
          config("not-store.properties", "ssl.truststore.location" -> text("plain.txt", "hello"))),
        2, "is not a PKCS12 store"),
      Row("security.protocol=SSLX",
        List("inspect", "--topic", "heartbeat", "--command-config", config("sslx.properties", "security.protocol" -> "SSLX")),
        2, "Invalid value SSLX for configuration security.protocol"),
      Row("a value the Java client refuses", List("heartbeat", "--count", "1", "--command-config", config("acks.properties", "acks" -> "some")),
        2, "Invalid value some for configuration acks"),
      Row("a key given twice in a command-config",
        List("inspect", "--topic", "heartbeat", "--command-config", text("dup.properties", "acks=1\n# again\nacks=all\n")),
        2, "dup.properties:3: property 'acks' is set again (first on line 1)"),
      Row("a bootstrap server without a port", List("inspect", "--topic", "heartbeat", "--bootstrap-server", "localhost"), 2,
        "flag --bootstrap-server: bootstrap server 'localhost' is not host:port"),
      Row("an empty bootstrap server", List("inspect", "--topic", "heartbeat"), 2, "env KAFKA_BROKERS: no bootstrap server given",
        env = Map("KAFKA_BROKERS" -> " , ")),
      Row("an invalid topic name to read", List("inspect", "--topic", "no such topic"), 2, "--topic: Topic name is invalid"),
      Row("an unknown topic to describe", List("topics", "describe", "heartbeat", "no-such-topic"), 2, "topic no-such-topic does not exist"),
      Row("an invalid topic name to describe", List("topics", "describe", "no such topic"), 2, "TOPIC: Topic name is invalid"),
      Row("a --fields path with an empty name", List("inspect", "--topic", "heartbeat", "--fields", "beat..x"), 2,
        "--fields 'beat..x': 'beat..x' is not a field path"),
      // Before 1970 a time is negative, which ListOffsets reads as "latest" or "earliest"; past the year 292,278,994 it is no long.
      Row("a time before Kafka's", List("inspect", "--topic", "heartbeat", "--from", "timestamp:1969-12-31T23:59:59Z"), 2,
        "--from '1969-12-31T23:59:59Z' is outside the times Kafka holds (1970-01-01T00:00:00Z to"),
      Row("a time past Kafka's",
        List("capture", "--topic", "heartbeat", "--to", "timestamp:+292278995-01-01T00:00:00Z", "--out",
          (dir / "far.zip").toString), 2, "'+292278995-01-01T00:00:00Z' is outside the times Kafka holds", absent = List(dir / "far.zip")),
      Row("a time before Kafka's to replay from",
        List("replay", "--from-topic", "heartbeat", "--to-file", (dir / "old.jsonl").toString,
          "--from", "timestamp:0001-01-01"), 2, "'0001-01-01' is outside the times Kafka holds", absent = List(dir / "old.jsonl")),
      Row("a time before Kafka's to reset to", List("groups", "reset", "some-group", "--topic", "heartbeat", "--to", "timestamp:0001-01-01"), 2,
        "'0001-01-01' is outside the times Kafka holds"),
      // PostgreSQL refuses a NUL in text: the iban is refused where it was read, before any query.
      Row("a NUL in an iban of a findings file",
        List("capture", "--topic", "heartbeat", "--from-findings",
          file("nul-findings.jsonl", "{\"finding\":\"x\",\"iban\":\"NL12OPEN\\u00000000000001\"}\n".getBytes("UTF-8")), "--out",
          (dir / "nul.zip").toString), 2, "nul-findings.jsonl:1: iban 'NL12OPEN0000000001' holds a control character (U+0000)",
        absent = List(dir / "nul.zip")),
      Row("a control character in --accounts",
        List("capture", "--topic", "heartbeat", "--accounts", "NL12\u0001OPEN", "--out",
          (dir / "ctl.zip").toString), 2, "--accounts: iban 'NL12OPEN' holds a control character (U+0001)", absent = List(dir / "ctl.zip")),
      Row("a --header without '='", List("inspect", "--topic", "heartbeat", "--header", "source"), 2, "--header 'source' is not KEY=VALUE"),
      Row("--all-partitions without --key", List("inspect", "--topic", "heartbeat", "--all-partitions"), 2,
        "--all-partitions goes with --key"),
      Row("an invalid topic name to write", List("replay", "--from-topic", "heartbeat", "--to-topic", "a/b"), 2, "--to-topic: Topic name is invalid"),
      Row("a replay file that is not UTF-8",
        List("replay", "--from-file", file("latin1.jsonl", (line + "\n").getBytes("UTF-8") ++ "caf\u00e9\n".getBytes("ISO-8859-1")),
          "--to-topic", "heartbeat"), 2, "latin1.jsonl:2: not UTF-8 text"),
      Row("a replay file that does not exist", List("replay", "--from-file", (dir / "absent.jsonl").toString, "--to-topic", "heartbeat"), 2,
        "absent.jsonl: no such file"),
      Row("--exact with a raw value shorter than the frame",
        List("replay", "--from-file",
          text("short.jsonl", """{"key":null,"raw":"AAE="}""" + "\n"), "--to-topic", "heartbeat", "--exact"), 2,
        "raw: not a Confluent-framed Avro value (2 bytes", lines = 2),
      Row("--exact with a raw value without the magic byte",
        List("replay", "--from-file",
          text("magic.jsonl", """{"key":null,"raw":"AQAAAAEC"}""" + "\n"), "--to-topic", "heartbeat", "--exact"), 2, "not the magic byte", lines = 2),
      Row("--rate with --to-file", List("replay", "--from-topic", "heartbeat", "--to-file", toFile.toString, "--rate", "5"), 2,
        "--rate paces sending to a topic", absent = List(toFile)),
      Row("produce: a value that does not fit the schema", List("produce", "--topic", "heartbeat", "--value", """{"beat":"x"}"""), 2,
        """--value: beat: expected a long, got "x"; nothing was sent"""),
      Row("produce: a field the record does not have", List("produce", "--topic", "heartbeat", "--value", """{"beat":1,"node":"a"}"""), 2,
        "node: nl.openweb.data.Heartbeat has no such field"),
      Row("produce: a record type the topic does not carry",
        List("produce", "--topic", "heartbeat", "--record", "ConfirmMoneyTransfer", "--value", "{}"), 2,
        "--record ConfirmMoneyTransfer: topic heartbeat carries Heartbeat"),
      Row("produce: a tombstone without a key", List("produce", "--topic", "heartbeat", "--tombstone"), 2, "--tombstone needs --key"),
      Row("produce: a subject the registry does not have",
        List("produce", "--topic", "heartbeat", "--subject-strategy", "TopicNameStrategy", "--value", """{"beat":1}"""), 2,
        "subject heartbeat-value does not exist"),
      Row("produce: a bad line on standard input", List("produce", "--topic", "heartbeat"), 2, "stdin:2: not JSON", stdin = "\n{beat\n"),
      Row("--context with --no-context", List("config", "show", "--context", "x", "--no-context"), 2,
        "--context and --no-context exclude each other"),
      Row("a JDBC URL for another driver", List("balances", "validate", "--db-url", "jdbc:mysql://localhost/balancedb"), 2,
        "flag --db-url: 'jdbc:mysql://localhost/balancedb' is not a PostgreSQL JDBC URL"),
      Row("a key given twice in topology.json", List("topics", "plan", "--topology", dupTopology.toString), 2,
        s"$dupTopology: key 'partitions' appears twice in one object (line"),
      Row("an unknown topic config key in plan (as apply refuses it)", List("topics", "plan", "--topology", unknownConfig.toString), 2,
        "no.such.setting"),
      Row("an unknown topic config key in the combined plan", List("plan", "--topology", unknownConfig.toString), 2, "no.such.setting"),
      Row("an unknown role in the topology's access", List("plan", "--topology", unknownRole.toString), 2,
        s"$unknownRole: access.User:handler[0].role: unknown role 'writer' (known: consumer, producer, transactional-producer, admin)"),
      Row("a SCRAM user whose password variable is not set: apply changes nothing", List("apply", "--topology", noPassword.toString) ++ environment,
        2, "refused: users.nopw: the environment variable BANKOPS_TEST_NOPW_PASSWORD holding the password of SCRAM user nopw is not set",
        lines = 2),
      Row("--delete-unlisted without --yes", List("apply", "--delete-unlisted"), 2,
        "--delete-unlisted deletes ACLs and SCRAM users: add --yes to confirm"),
      Row("a web server where the registry should be", List("inspect", "--topic", "heartbeat", "--registry-url", s"http://127.0.0.1:$webServer"), 3,
        s"no Confluent-compatible registry at http://127.0.0.1:$webServer (404 on /schemas/ids/"),
      // Apicurio's own root answers JSON 404s without Confluent's error_code: no registry, whichever job asks.
      Row("a registry URL without its API path: inspect", List("inspect", "--topic", "heartbeat", "--registry-url", apicurioRoot), 3,
        s"no Confluent-compatible registry at $apicurioRoot (404 on /schemas/ids/"),
      Row("a registry URL without its API path: schemas plan", List("schemas", "plan", "--registry-url", apicurioRoot), 3,
        s"no Confluent-compatible registry at $apicurioRoot (404 on /subjects"),
      Row("a registry URL without its API path: replay --dry-run",
        List("replay", "--from-file", text("beat.jsonl", line + "\n"), "--to-topic", "heartbeat",
          "--dry-run", "--registry-url", apicurioRoot), 3, s"no Confluent-compatible registry at $apicurioRoot (404 on /subjects"),
      Row("replay --create-topic to a topic the topology does not declare",
        List("replay", "--from-topic", "heartbeat", "--limit", "1",
          "--to-topic", "scratch-undeclared", "--create-topic"), 2, "target topic scratch-undeclared does not exist and"),
      Row("replay to a --to-registry-url that is no registry",
        List("replay", "--from-topic", "heartbeat", "--limit", "1", "--to-topic", "heartbeat",
          "--to-registry-url", apicurioRoot), 3, s"no Confluent-compatible registry at $apicurioRoot"),
      Row("a registry URL with bad syntax", List("schemas", "plan", "--registry-url", "http//localhost:18081"), 2,
        "flag --registry-url: 'http//localhost:18081' is not a registry URL"),
      Row("credentials in the registry URL and in --registry-user-info",
        List("schemas", "plan", "--registry-url",
          s"http://alice:$secret@localhost:18081", "--registry-user-info", s"bob:$secret"), 2,
        "the URL carries credentials and flag --registry-user-info gives them too"),
      Row("a missing --registry-ca", List("schemas", "plan", "--registry-ca", (dir / "none.pem").toString), 2,
        s"flag --registry-ca: ${dir / "none.pem"} does not exist"),
      Row("a --registry-ca that is not PEM", List("schemas", "plan", "--registry-ca", text("ca.pem", "-----BEGIN NOTHING-----\n")), 2,
        "holds no PEM certificate"),
      Row("schemas show: a subject the registry does not hold", List("schemas", "show", "no-such-subject-history"), 2,
        "subject no-such-subject-history does not exist in the registry"),
      Row("schemas show: a version the subject does not have", List("schemas", "show", "heartbeat-nl.openweb.data.Heartbeat@999"), 2,
        "subject heartbeat-nl.openweb.data.Heartbeat has no version 999"),
      Row("schemas diff: a .avsc that does not exist", List("schemas", "diff", "heartbeat-nl.openweb.data.Heartbeat", (dir / "none.avsc").toString),
        2, s"${dir / "none.avsc"}: no such file"),
      Row("the handler's --ready-file is a directory", List("handler", "--ready-file", dir.toString), 2,
        s"--ready-file $dir is a directory: give a file name inside it; nothing written"),
      Row("the handler with a database that refuses connections",
        List("handler", "--db-url", "jdbc:postgresql://127.0.0.1:1/balancedb", "--timeout", "5"),
        3, "PostgreSQL database jdbc:postgresql://127.0.0.1:1/balancedb (user "),
      Row("a database password that is wrong, with --verbose", List("balances", "validate", "--verbose"), 3, "PostgreSQL",
        env = Map("DB_PASSWORD" -> secret)),
      // The port of the sandbox's PostgreSQL speaks no Kafka: the TLS handshake fails (the clients log it with a trace).
      Row("Kafka pointed at a port that speaks another protocol",
        List("inspect", "--topic", "heartbeat", "--timeout", "5", "--bootstrap-server",
          s"localhost:${SandboxFixture.sandboxSettings.dbPort}"), 3, s"localhost:${SandboxFixture.sandboxSettings.dbPort}"),
      Row("a password in clear for a context", List("context", "add", "c", "--db-password", secret), 2,
        "--db-password: a context keeps no secret in clear", env = xdg, absent = List(contexts)),
      Row("credentials in a context's registry URL", List("context", "add", "c", "--registry-url", s"https://me:$secret@reg:8081"), 2,
        "--registry-url holds credentials", env = xdg, absent = List(contexts)),
      Row("a context name that is a path", List("context", "add", "../c"), 2, "context name '../c' must be", env = xdg, absent = List(contexts)),
      Row("an unknown context", List("inspect", "--topic", "heartbeat", "--context", "prod"), 2, "unknown context 'prod'", env = xdg),
      Row("a context naming a file that is not there", List("context", "add", "c", "--command-config", (dir / "none.properties").toString), 2,
        s"--command-config ${dir / "none.properties"} is not a file", env = xdg, absent = List(contexts)),
      Row("a contexts file that is not JSON", List("inspect", "--topic", "heartbeat"), 2, "not a contexts file",
        env = Map("XDG_CONFIG_HOME" -> badContexts.toString))
    )
  }

  private def ends(topic: String): IO[Long] = SandboxFixture.written(topic)

  test(
    "every class of bad input: its exit code and one line naming the file and key, flag or address; nothing sent or written".tag(OnSandbox.Alone)) {
    HttpStub.resource(404, "<html><body>Not Found</body></html>").use { webServer =>
      for {
        _ <- SandboxFixture.connection
        // One heartbeat to read: inspect then asks the registry for its schema.
        seeded <- TestShell.run(List("heartbeat", "--count", "1"), sandboxEnv, Repo.root)
        _ = assertEquals(seeded.code, 0, seeded.err)
        table = rows(webServer)
        before <- ends("heartbeat")
        // Four at a time: some rows wait out a --timeout, and the sandbox is held alone meanwhile.
        results <- IO.parTraverseN(4)(table)(r => TestShell.run(r.args, sandboxEnv ++ r.env, Repo.root, r.stdin).map(r -> _))
        after <- ends("heartbeat")
      } yield {
        val failures = results.flatMap { case (row, res) =>
          // The drift notice (ACLs earlier suites' fixtures granted on the shared sandbox) depends on which suites ran before.
          val lines = res.err.linesIterator.filter(_.nonEmpty).filterNot(l => l.startsWith("access: ") && l.contains("left alone")).toList
          val verbose = row.args.contains("--verbose")
          List(
            Option.when(res.code != row.code)(s"exit ${res.code}, expected ${row.code}"),
            Option.when(!res.err.contains(row.fragment))(s"no '${row.fragment}'"),
            Option.when(res.err.contains("unexpected error"))("'unexpected error'"),
            Option.when(!verbose && lines.size != row.lines)(s"${lines.size} lines, expected ${row.lines}"),
            Option.when(res.err.contains(secret) || res.out.contains(secret))("the secret is shown"),
            row.absent.find(os.exists(_)).map(p => s"$p was written")
          ).flatten.map(problem => s"${row.name}: $problem\n${res.err.take(2000)}")
        }
        assertEquals(failures, Nil, failures.mkString("\n\n"))
        assertEquals(after, before, "nothing was sent to heartbeat")
        assert(results.size >= 25, results.size.toString)
      }
    }
  }

  test("doctor names a bad setting as its check, never an internal class") {
    val args = List("doctor", "--command-config", config("doctor-sslx.properties", "security.protocol" -> "SSLX"), "--timeout", "5", "-o", "table")
    TestShell.run(args, sandboxEnv, Repo.root).map { r =>
      assertEquals(r.code, 3, r.err)
      assert(
        r.out.linesIterator.exists(l =>
          l.startsWith("FAIL") && l.contains("kafka settings") && l.contains("Invalid value SSLX for configuration security.protocol")), r.out)
      assert(!(r.out + r.err).contains("$"), r.out + r.err)
    }
  }
}

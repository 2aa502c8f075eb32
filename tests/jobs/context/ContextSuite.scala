package bankops.jobs.context

import cats.effect.{IO, Resource}
import io.circe.Json
import io.circe.parser.parse

import scala.concurrent.duration._

import bankops.Jobs
import bankops.base.Cli
import bankops.support.{IOSuite, Repo, SandboxFixture, Setup, TestShell}
import bankops.support.OnSandbox

/** Contexts against two real sandboxes: the tests' own (A) and a second on other ports (B, started here once, with a
  * temporary config directory, so `sandbox up` registers it as the context `sandbox` there and never in the user's).
  */
class ContextSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 10.minutes

  private val xdg = os.temp.dir(prefix = "bankops-contexts")
  private val contextsFile = xdg / "bankops" / "contexts.json"
  private val dirB = Repo.root / ".bankops" / "test-sandbox-contexts"
  // Below Linux's ephemeral range (32768-60999) at the default ports: a client connection's local port there once took
  // 59292 from `up`.
  private val settingsB = SandboxFixture.beside(2)
  private val (kafkaB, registryB, dbB) = (settingsB.kafkaPort, settingsB.registryPort, settingsB.dbPort)
  private val portsB = SandboxFixture.portFlags(settingsB)
  private val env = Map("XDG_CONFIG_HOME" -> xdg.toString)

  private def cli(args: String*)(extra: (String, String)*): IO[TestShell.Result] = TestShell.run(args.toList, env ++ extra, Repo.root)

  /** As `--verbose` makes it: stack traces on errors. */
  private def verbose(args: String*)(extra: (String, String)*): IO[TestShell.Result] = {
    val t = new TestShell(env ++ extra, Repo.root)
    Cli.run(args.toList, t.shell.copy(verbose = true), Jobs.all).map(c => TestShell.Result(c.code, t.out, t.err))
  }

  private val upB = List("sandbox", "up", "--no-handler", "--brokers", "1", "--sandbox-dir", dirB.toString) ++ portsB

  private val sandboxB = ResourceSuiteLocalFixture("sandbox-b",
    Resource.make(
      // The operator's shell names another cluster and an unknown context: the sandbox's own provisioning uses neither.
      // A shared turn: starting a second sandbox is CPU work like a test's load. Alone, it had the whole run wait for
      // it (31 s) and first for the tests in flight to end, at the end of runs 26 and 28.
      OnSandbox.turns.io(alone = false)(SandboxFixture.connection >> cli(upB: _*)(
        "KAFKA_BROKERS" -> "127.0.0.1:1", "DB_URL" -> "jdbc:postgresql://127.0.0.1:1/x", "BANKOPS_CONTEXT" -> "nosuch")
        .flatMap(Setup.succeeded("sandbox up (B)")).void)
    )(_ => cli("sandbox", "down", "--wipe", "--sandbox-dir", dirB.toString)().void))

  override def munitFixtures = List(sandboxB)

  private def json(r: TestShell.Result): List[Json] = r.outLines.map(l => parse(l).fold(e => fail(s"not JSON: $l ($e)"), identity))
  private def setting(r: TestShell.Result, name: String): (String, String) =
    json(r).find(_.hcursor.get[String]("setting").contains(name)).map(j =>
      (j.hcursor.get[String]("value").getOrElse(""), j.hcursor.get[String]("source").getOrElse(""))).getOrElse(fail(s"no $name in ${r.out}"))

  private lazy val passwordB = os.read(dirB / "db-password")

  test("sandbox up registers the context sandbox: its addresses, its password by file; the file is private") {
    for {
      show <- cli("context", "show", "sandbox", "-o", "json")()
      _ = assertEquals(show.code, 0, show.err)
      settings = json(show).head.hcursor.downField("settings")
      _ = assertEquals(settings.get[String]("bootstrap-server"), Right(s"localhost:$kafkaB"))
      _ = assertEquals(settings.get[String]("db-password"), Right(s"file ${dirB / "db-password"}"))
      _ = assertEquals(settings.get[String]("sandbox-dir"), Right(dirB.toString))
      _ = assertEquals(os.perms(contextsFile).toString, "rw-------")
      _ = assert(!os.read(contextsFile).contains(passwordB), "the password is in the contexts file")
    } yield ()
  }

  // Alone: doctor must find sandbox A healthy (no prepared transaction another test holds). The rest reads and writes
  // only this suite's contexts file and sandbox B.
  test("context add both sandboxes; use, --context and BANKOPS_CONTEXT each reach the right one".tag(OnSandbox.Alone)) {
    for {
      a <- SandboxFixture.connection
      _ <- cli("context", "add", "a", "--bootstrap-server", a.bootstrapServers, "--command-config", a.commandConfig.toString, "--registry-url",
        a.registryUrl, "--db-url", a.dbUrl, "--db-user", a.dbUser, "--db-password-env", "A_DB_PASSWORD")().flatMap(Setup.succeeded("add a"))
      _ <- cli("context", "add", "b", "--bootstrap-server", s"localhost:$kafkaB", "--command-config", (dirB / "client.properties").toString,
        "--registry-url", s"http://localhost:$registryB/apis/ccompat/v7", "--db-url", s"jdbc:postgresql://127.0.0.1:$dbB/balancedb", "--db-user",
        "bank",
        "--db-password-file", (dirB / "db-password").toString)().flatMap(Setup.succeeded("add b"))
      _ <- cli("context", "use", "a")().flatMap(Setup.succeeded("use a"))
      withA = "A_DB_PASSWORD" -> a.dbPassword
      // A runs the command handler, B none: the consumer groups tell the clusters apart.
      groupsA <- cli("groups", "list", "-o", "json")(withA)
      groupsB <- cli("groups", "list", "-o", "json", "--context", "b")(withA)
      groupsEnvB <- cli("groups", "list", "-o", "json")(withA, "BANKOPS_CONTEXT" -> "b")
      groupsFlagA <- cli("groups", "list", "-o", "json", "--context", "a")(withA, "BANKOPS_CONTEXT" -> "b")
      doctorB <- verbose("doctor", "-o", "json")("BANKOPS_CONTEXT" -> "b")
      failedB <- verbose("groups", "describe", "no-such-group", "--context", "b")()
      doctorA <- cli("doctor", "-o", "json")(withA)
      list <- cli("context", "list", "-o", "json")()
    } yield {
      val handler = "bankops-command-handler"
      for (r <- List(groupsA, groupsB, groupsEnvB, groupsFlagA)) assertEquals(r.code, 0, r.err)
      assert(groupsA.out.contains(handler), groupsA.out)
      assert(!groupsB.out.contains(handler), groupsB.out)
      assert(!groupsEnvB.out.contains(handler), groupsEnvB.out)
      assert(groupsFlagA.out.contains(handler), groupsFlagA.out)
      assertEquals(doctorB.code, 0, doctorB.out + doctorB.err)
      assert(doctorB.out.contains(s"$dbB") && doctorB.out.contains(s"$kafkaB"), doctorB.out)
      assertEquals(doctorA.code, 0, doctorA.out + doctorA.err)
      assert(doctorA.out.contains(s"${SandboxFixture.sandboxSettings.dbPort}"), doctorA.out)
      assertEquals(failedB.code, 2, failedB.err)
      for (r <- List(doctorA, doctorB, failedB); s <- List(a.dbPassword, passwordB)) assert(!(r.out + r.err).contains(s), "a password was printed")
      assertEquals(json(list).filter(_.hcursor.get[Boolean]("current").contains(true)).flatMap(_.hcursor.get[String]("name").toOption), List("a"))
    }
  }

  test("config show names the context each setting came from; flags and variables still win; secrets masked") {
    for {
      b <- cli("config", "show", "-o", "json", "--context", "b")()
      overridden <- cli("config", "show", "-o", "json", "--context", "b", "--db-user", "other")("KAFKA_BROKERS" -> "localhost:1")
    } yield {
      assertEquals(b.code, 0, b.err)
      assertEquals(setting(b, "kafka.bootstrap.servers"), (s"localhost:$kafkaB", "context b"))
      assertEquals(setting(b, "db.password"), ("****", "context b"))
      assert(!b.out.contains(passwordB))
      assertEquals(setting(overridden, "kafka.bootstrap.servers"), ("localhost:1", "env KAFKA_BROKERS"))
      assertEquals(setting(overridden, "db.user"), ("other", "flag --db-user"))
      assertEquals(setting(overridden, "db.url")._2, "context b")
    }
  }

  test("a secret in clear is refused (exit 2) and nothing is written; a missing variable is exit 2 naming it") {
    val before = os.read(contextsFile)
    for {
      dbPassword <- cli("context", "add", "c", "--db-password", "hunter2secret")()
      userInfo <- cli("context", "add", "c", "--registry-user-info", "me:hunter2secret")()
      inUrl <- cli("context", "add", "c", "--registry-url", "https://me:hunter2secret@reg:8081")()
      unset <- cli("config", "show", "--context", "a")()
    } yield {
      for (r <- List(dbPassword, userInfo, inUrl)) {
        assertEquals(r.code, 2, r.err)
        assert(r.err.contains("no secret in clear"), r.err)
        assert(!r.err.contains("hunter2secret"), r.err)
      }
      assertEquals(os.read(contextsFile), before)
      assertEquals(unset.code, 2, unset.err)
      assert(unset.err.contains("context a: db password: variable A_DB_PASSWORD is not set"), unset.err)
    }
  }

  test("an unknown context is exit 2 naming the known ones; removing the current one leaves none current") {
    for {
      unknown <- cli("inspect", "--topic", "heartbeat", "--context", "prod")()
      unknownEnv <- cli("config", "show")("BANKOPS_CONTEXT" -> "prod")
      removed <- cli("context", "remove", "a")()
      show <- cli("context", "show")()
    } yield {
      for (r <- List(unknown, unknownEnv)) {
        assertEquals(r.code, 2, r.err)
        assert(r.err.contains("unknown context 'prod' (known: a, b, sandbox)"), r.err)
      }
      assertEquals(removed.code, 0, removed.err)
      assertEquals(show.code, 2, show.err)
      assert(show.err.contains("no context is chosen"), show.err)
    }
  }

  test("sandbox down --wipe removes the context sandbox") {
    for {
      down <- cli("sandbox", "down", "--wipe", "--sandbox-dir", dirB.toString)()
      list <- cli("context", "list", "-o", "json")()
    } yield {
      assertEquals(down.code, 0, down.err)
      assertEquals(json(list).flatMap(_.hcursor.get[String]("name").toOption), List("b"))
    }
  }
}

package bankops.jobs

import cats.effect.IO
import cats.syntax.all._

import org.apache.kafka.common.acl.AclOperation.{ALTER_CONFIGS, DESCRIBE, DESCRIBE_CONFIGS, READ, WRITE}

import scala.concurrent.duration._

import bankops.services.bank.BankNames
import bankops.support.{IOSuite, Repo, SandboxFixture, Strangers, TestShell}
import bankops.support.OnSandbox

/** "Denied is a clear line", on the three-broker sandbox with its authorizer: every refusal is exit 4 and one line
  * naming the operation, the resource and the identity with where it came from; fast, never a stack trace or a hang.
  */
class NotAuthorizedSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 10.minutes

  private val identities = SandboxFixture.layout.identitiesDir
  private val heartbeatValue = """{"beat":1}"""
  private val transfer = """{"token":"00000000000000000000","amount":5000,"from":"NL66OPEN0000000000","to":"cash","description":"x"}"""

  /** The CLI with the client properties of `config` in BANKOPS_COMMAND_CONFIG; its time taken. */
  private def as(config: os.Path, args: String*): IO[(TestShell.Result, FiniteDuration)] =
    SandboxFixture.connection >>
      TestShell.run(args.toList, SandboxFixture.env + ("BANKOPS_COMMAND_CONFIG" -> config.toString), Repo.root).timed.map(_.swap)

  /** The error lines on stderr: bankops' own, never a stack trace (a job's progress lines, such as produce's fresh ids, aside). */
  private def errors(r: TestShell.Result): List[String] = {
    assert(!r.err.contains("Exception") && !r.err.contains("\tat "), r.err)
    r.err.linesIterator.filter(_.startsWith("bankops: ")).toList
  }

  /** Exit 4 within 30 s, and the one error line expected. */
  private def refused(r: (TestShell.Result, FiniteDuration), line: String): Unit = {
    val (result, took) = r
    assertEquals(result.code, 4, result.err)
    assertEquals(errors(result), List(s"bankops: $line"))
    assert(took < 30.seconds, s"$took for: $line")
  }

  test("an identity the CA signed but granted nothing can read, write and describe nothing: each a named line, exit 4") {
    Strangers.certificate("nobody").flatMap { config =>
      val me = "as CN=nobody (from BANKOPS_COMMAND_CONFIG)"
      List(
        List("inspect", "--topic", BankNames.Commands, "--limit", "1") -> s"not authorized to READ topic commands $me",
        List("balances", "validate") -> s"not authorized to READ topic balance_changed $me",
        List("replay", "--from-topic", BankNames.Commands, "--to-file", (os.temp.dir() / "out.jsonl").toString) ->
          s"not authorized to READ topic commands $me",
        List("produce", "--topic", BankNames.Heartbeat, "--value", heartbeatValue) -> s"not authorized to WRITE topic heartbeat $me",
        List("heartbeat", "--rate", "10", "--count", "5") -> s"not authorized to WRITE topic heartbeat $me",
        List("replay", "--from-topic", BankNames.DeadLetters, "--to-topic", BankNames.Commands) -> s"not authorized to WRITE topic commands $me",
        List("topics", "describe", BankNames.Commands) -> s"not authorized to DESCRIBE topic commands $me",
        List("plan") -> s"not authorized to DESCRIBE topics balance_changed, command_feedback, commands, commands.dlq, heartbeat $me",
        List("groups", "describe", BankNames.HandlerGroup) -> s"not authorized to DESCRIBE group bankops-command-handler $me",
        List("handler", "--instance", "nobody") ->
          s"not authorized to READ topics command_feedback, commands and WRITE topics balance_changed, commands.dlq $me"
      ).traverse_ { case (args, line) => as(config, args: _*).map(refused(_, line)) }
    }
  }

  test("handler cannot write commands") {
    // The handler may write its outputs, so its producer gets an id and the send itself is refused.
    as(identities / "handler.properties", "produce", "--topic", BankNames.Commands, "--record", "ConfirmMoneyTransfer", "--value", transfer)
      .map(refused(_, "not authorized to WRITE topic commands as CN=handler (from BANKOPS_COMMAND_CONFIG)"))
  }

  test("reader cannot write anywhere") {
    List(BankNames.Heartbeat, BankNames.Commands, BankNames.Feedback, BankNames.BalanceChanged, BankNames.DeadLetters).traverse_ { topic =>
      as(identities / "reader.properties", "produce", "--topic", topic, "--tombstone", "--key", "k").map { case (r, took) =>
        assertEquals(r.code, 4, r.err)
        assertEquals(r.err.linesIterator.size, 1, r.err)
        assert(
          r.err.startsWith(s"bankops: not authorized to WRITE topic $topic") && r.err.trim.endsWith("as CN=reader (from BANKOPS_COMMAND_CONFIG)"),
          r.err)
        assert(took < 30.seconds, took)
      }
    }
  }

  // Shared: refused before it makes a topic or sends a probe, so nothing another test sees changes (and were it not
  // refused, this test fails on its exit code).
  test("latency --floor as an identity that may not read the commands topic's configs: named, exit 4, no scratch topic made") {
    as(identities / "loader.properties", "latency", "--floor", "--load", "0", "--step-duration", "2s", "--warm-up", "0").map { r =>
      refused(r, "not authorized to DESCRIBE_CONFIGS topic commands as CN=loader (from BANKOPS_COMMAND_CONFIG)")
      assert(!r._1.err.contains("bankops-floor-"), r._1.err)
    }
  }

  private val bankTopics = List(BankNames.Heartbeat, BankNames.Commands, BankNames.DeadLetters, BankNames.Feedback, BankNames.BalanceChanged)

  test("an identity that may only read: its producer id is refused, named as the WRITE it meant; doctor's probes show what they can") {
    (Strangers.certificate("peeker"), Strangers.grant("peeker", bankTopics, READ, DESCRIBE)).mapN((config, _) => config).flatMap { config =>
      as(config, "produce", "--topic", BankNames.Commands, "--record", "ConfirmMoneyTransfer", "--value", transfer).map { case (r, took) =>
        assertEquals(r.code, 4, r.err)
        val line = errors(r).mkString("\n")
        assert(line.startsWith("bankops: not authorized to WRITE topic commands (") && line.endsWith("as CN=peeker (from BANKOPS_COMMAND_CONFIG)"),
          r.err)
        assert(took < 30.seconds, took)
      } >> as(config, "inspect", "--topic", BankNames.Commands, "--limit", "1", "--from", "end", "--to", "end").map(r =>
        assertEquals(r._1.code, 0, r._1.err)) >>
        as(config, "doctor", "-o", "json").map { case (r, _) =>
          def access(job: String) = r.outLines.find(_.contains(s"\"access $job\"")).getOrElse(fail(r.out))
          assert(access("inspect").contains("\"access\":\"held\""), r.out)
          assert(access("balances").contains("\"access\":\"held\""), r.out)
          // A WRITE cannot be probed without writing: unknown, not held.
          assert(access("produce").contains("\"access\":\"unknown\""), r.out)
          assert(access("handler").contains("\"access\":\"missing\"") && access("handler").contains("READ group bankops-command-handler"), r.out)
        }
    }.guarantee(Strangers.revoke("peeker"))
  }

  test("an identity that may write another topic: the send itself is refused; the handler's transactional id is named") {
    (Strangers.certificate("beater"), Strangers.grant("beater", bankTopics, READ, DESCRIBE),
      Strangers.grant("beater", List(BankNames.Heartbeat), WRITE))
      .mapN((config, _, _) => config).flatMap { config =>
        as(config, "produce", "--topic", BankNames.Commands, "--record", "ConfirmMoneyTransfer", "--value", transfer).map(
          refused(_, "not authorized to WRITE topic commands as CN=beater (from BANKOPS_COMMAND_CONFIG)")) >>
          as(config, "heartbeat", "--rate", "10", "--count", "3").map(r => assertEquals(r._1.code, 0, r._1.err)) >>
          as(config, "handler", "--instance", "beater").map(
            refused(_, "not authorized to WRITE transactional-id bankops-command-handler-beater as CN=beater (from BANKOPS_COMMAND_CONFIG)"))
      }.guarantee(Strangers.revoke("beater"))
  }

  /** A copy of the bank's topology (with its .avsc files) whose heartbeat topic's retention differs, edited further by `edit`. */
  private def heartbeatRetentionChanged(edit: io.circe.Json => io.circe.Json): IO[os.Path] = IO.blocking {
    val dir = os.temp.dir()
    os.list(Repo.root / "schemas").foreach(f => os.copy(f, dir / f.last))
    val file = dir / "topology.json"
    val json = io.circe.parser.parse(os.read(file).replace("\"retention.ms\": \"900000\"", "\"retention.ms\": \"1200000\"")).toOption.get
    os.write.over(file, edit(json).spaces2)
    file
  }

  test("topics as code: a change the identity may not make is refused by name, plan's gate and apply alike; nothing changes".tag(OnSandbox.Alone)) {
    // Topics alone (its access would need DESCRIBE on the cluster first).
    val topology = heartbeatRetentionChanged(_.mapObject(_.remove("access").remove("users")))
    (Strangers.certificate("planner"), Strangers.grant("planner", bankTopics, DESCRIBE, DESCRIBE_CONFIGS), topology).mapN((config, _, file) =>
      (config, file)).flatMap { case (config, file) =>
      val line = "refused: topic heartbeat: set config: not authorized to ALTER_CONFIGS topic heartbeat as CN=planner (from BANKOPS_COMMAND_CONFIG)"
      List(List("plan", "--gate"), List("apply"), List("topics", "apply")).traverse_ { args =>
        as(config, (args ++ List("--topology", file.toString)): _*).map { case (r, _) =>
          assertEquals(r.code, 4, r.err)
          assert(r.err.linesIterator.exists(_.endsWith(line.stripPrefix("refused: topic heartbeat: set config: "))), r.err)
          assert(!r.err.contains("Exception"), r.err)
        }
      } >> as(identities / "operator.properties", "topics", "plan").map(r => assertEquals(r._1.code, 0, r._1.out))
    }.guarantee(Strangers.revoke("planner"))
  }

  test("access as code: ACL changes the identity may not make (no ALTER on the cluster) refuse plan's gate and apply before any topic changes".tag(
      OnSandbox.Alone)) {
    // One principal more in access (its SCRAM users left out: they need no change).
    val auditor = io.circe.parser.parse("""[{"role": "consumer", "topics": ["heartbeat"], "groupPrefix": "bankops-auditor-"}]""").toOption.get
    val topology = heartbeatRetentionChanged(_.mapObject(_.remove("users")).hcursor.downField("access")
        .withFocus(_.mapObject(_.add("User:auditor", auditor))).top.get)
    (Strangers.certificate("deployer"), Strangers.grantCluster("deployer", DESCRIBE),
      Strangers.grant("deployer", bankTopics, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS), topology).mapN((config, _, _, file) => (config, file))
      .flatMap { case (config, file) =>
        val line = "refused: access: not authorized to ALTER the cluster as CN=deployer (from BANKOPS_COMMAND_CONFIG): creating and deleting " +
          "ACLs and SCRAM users needs it"
        List(List("plan", "--gate"), List("apply")).traverse_ { args =>
          as(config, (args ++ List("--topology", file.toString)): _*).map { case (r, _) =>
            assertEquals(r.code, 4, r.err)
            assert(r.err.linesIterator.contains(line), r.err)
            assert(!r.err.contains("Exception"), r.err)
          }
        } >> as(identities / "operator.properties", "topics", "plan").map(r => assertEquals(r._1.code, 0, s"heartbeat's config changed: ${r._1.out}"))
      }.guarantee(Strangers.revoke("deployer") >> Strangers.revoke("auditor"))
  }

  test("a SCRAM user with a wrong password is a named failure (exit 3), the password never shown") {
    val wrong = "not-the-password-4711"
    SandboxFixture.connection >> IO.blocking {
      val text = os.read(identities / "reader-scram.properties").replaceAll("password=\"[^\"]*\"", s"password=\"$wrong\"")
      os.temp(text, suffix = ".properties")
    }.flatMap { config =>
      TestShell.run(List("inspect", "--topic", BankNames.Commands, "--limit", "1", "--bootstrap-server", Strangers.scramBootstrap, "--command-config",
          config.toString), SandboxFixture.env, Repo.root).map { r =>
        assertEquals(r.code, 3, r.err)
        assertEquals(r.err.linesIterator.toList,
          List(
            s"bankops: Kafka at ${Strangers.scramBootstrap}: authentication failed for SCRAM user reader (from --command-config) (wrong password?)"))
        assert(!r.err.contains(wrong) && !r.out.contains(wrong))
      }
    }
  }

  test("a SCRAM user granted nothing is refused by name") {
    Strangers.scramUser("stranger", "stranger-password-1").flatMap { config =>
      TestShell.run(List("inspect", "--topic", BankNames.Commands, "--limit", "1", "--bootstrap-server", Strangers.scramBootstrap, "--command-config",
          config.toString), SandboxFixture.env, Repo.root).map { r =>
        assertEquals(r.code, 4, r.err)
        assertEquals(r.err.trim, "bankops: not authorized to READ topic commands as SCRAM user stranger (from --command-config)")
      }
    }.guarantee(Strangers.revoke("stranger"))
  }

  test("doctor names the identity and, per job, what is missing; --require a job it cannot do is exit 4".tag(OnSandbox.Alone)) {
    Strangers.certificate("nobody").flatMap { config =>
      as(config, "doctor", "-o", "json").flatMap { case (r, _) =>
        val lines = r.outLines.map(l => io.circe.parser.parse(l).toOption.get.hcursor)
        def check(name: String) = lines.find(_.get[String]("check").contains(name)).getOrElse(fail(s"no $name in ${r.out}"))
        assertEquals(r.code, 0, r.out)
        assert(check("kafka identity").get[String]("detail").exists(_.startsWith("CN=nobody (from BANKOPS_COMMAND_CONFIG)")), r.out)
        assertEquals(check("access handler").get[String]("access").toOption, Some("missing"))
        assert(check("access produce").get[String]("detail").contains("missing WRITE topic commands"), r.out)
        assert(check("access inspect").get[String]("detail").exists(_.contains("missing READ topics heartbeat, commands")), r.out)
        as(config, "doctor", "--require", "handler", "-o", "json").map(r2 => assertEquals(r2._1.code, 4, r2._1.out))
      }
    } >> as(identities / "operator.properties", "doctor", "-o", "json", "--require", "handler", "--require", "apply").map { case (r, _) =>
      assertEquals(r.code, 0, r.out)
      assert(r.outLines.filter(_.contains("\"access ")).forall(_.contains("\"access\":\"held\"")), r.out)
    }
  }
}

package bankops.jobs.heartbeat

import io.circe.parser.parse

import java.util.UUID
import scala.concurrent.duration._

import bankops.services.bank.{BankRules, ConfirmMoneyTransfer}
import bankops.support.{CliProcess, IOSuite, ModelBank, PythonClients, SandboxFixture, Seeded, Setup, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

class HeartbeatSuite extends IOSuite with Seeded with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  test("--count N produces exactly N heartbeats, beats contiguous from --start-beat; bankops inspect and AvroDeserializer agree") {
    val topic = TopologyFixture.unique("heartbeat")
    val file = TopologyFiles.write(TopologyFiles.topology((topic, 1, Map.empty, "Heartbeat", "time")))
    for {
      _ <- Setup.cli("apply the topology", "apply", "--topology", file.toString)
      run <- SandboxFixture.cli("heartbeat", "--topic", topic, "--count", "2500", "--rate", "0", "--start-beat", "41", "-o", "json")
      inspected <- SandboxFixture.cli("inspect", "--topic", topic, "-o", "json")
      python <- PythonClients.consume(topic)
    } yield {
      assertEquals(run.code, 0, run.err)
      val summary = parse(run.out).toOption.get.hcursor
      assertEquals(summary.get[Long]("records"), Right(2500L))
      assertEquals(summary.get[Long]("errors"), Right(0L))
      assert(summary.downField("latencyMs").get[Double]("p99").exists(_ > 0), run.out)
      val beats = inspected.outLines.map(l => parse(l).toOption.get.hcursor.downField("value").get[Long]("beat").toOption.get)
      assertEquals(beats, (41L until 41L + 2500).toList)
      assertEquals(python.map(_.hcursor.downField("value").get[Long]("beat").toOption.get), beats)
      assert(inspected.err.contains("2500 read, 2500 shown, 0 undecodable"), inspected.err)
    }
  }

  test("commands: valid generated accounts, 20-digit tokens, deposits from cash, and exactly the failing share asked for") {
    val topic = TopologyFixture.unique("commands")
    val file = TopologyFiles.write(s"""{"topics": {"$topic": {"partitions": 3, "replicationFactor": 1, "records": [
      {"type": "nl.openweb.data.ConfirmAccountCreation", "key": "id"}, {"type": "nl.openweb.data.ConfirmMoneyTransfer", "key": "id"}]}}}""")
    for {
      _ <- Setup.cli("apply the topology", "apply", "--topology", file.toString)
      run <- SandboxFixture.cli("heartbeat", "--kind", "commands", "--no-learn", "--commands-topic", topic, "--count", "2000", "--rate", "0",
        "--fail-share", "0.25", "--seed", "7")
      python <- PythonClients.consume(topic)
    } yield {
      assertEquals(run.code, 0, run.err)
      assertEquals(python.size, 2000)
      val transfers = python.map(_.hcursor.downField("value")).filter(_.downField("amount").succeeded).map { c =>
        ConfirmMoneyTransfer(UUID.fromString(c.get[String]("id").toOption.get), c.get[String]("token").toOption.get,
          c.get[Long]("amount").toOption.get,
          c.get[String]("from").toOption.get, c.get[String]("to").toOption.get, c.get[String]("description").toOption.get)
      }
      assert(transfers.size > 1500, transfers.size.toString)
      assert(transfers.forall(_.token.matches("\\d{20}")))
      assert(transfers.forall(t => ModelBank.validIban(t.to)), transfers.filterNot(t => ModelBank.validIban(t.to)).take(3).toString)
      assert(transfers.exists(_.from == ModelBank.Cash))
      assert(transfers.forall(_.amount > 0), transfers.filter(_.amount <= 0).take(3).toString)
      // Judged by the bank's rules as the tests state them, not by the generator's own idea of a failing transfer.
      val failing = transfers.filter(ModelBank.failsWithoutAccounts)
      assertEquals(failing.size, math.floor(transfers.size * 0.25).toInt)
      assert(python.forall(j => j.hcursor.get[String]("key") == j.hcursor.downField("value").get[String]("id")))
    }
  }

  test("a missing subject: exit 2 naming it, nothing sent; a missing topic: exit 2") {
    val topic = TopologyFixture.unique("heartbeat")
    val file = TopologyFiles.write(TopologyFiles.topology((topic, 1, Map.empty, "Heartbeat", "time")))
    for {
      _ <- Setup.cli("apply the topic", "topics", "apply", "--topology", file.toString)
      missing <- SandboxFixture.cli("heartbeat", "--topic", topic, "--count", "10")
      inspected <- SandboxFixture.cli("inspect", "--topic", topic, "-o", "json")
      noTopic <- SandboxFixture.cli("heartbeat", "--topic", "no-such-heartbeats", "--count", "10")
      registered <- SandboxFixture.cli("heartbeat", "--topic", topic, "--count", "10", "--register", "-o", "json")
    } yield {
      assertEquals(missing.code, 2)
      assertEquals(missing.err.trim,
        s"bankops: subject $topic-nl.openweb.data.Heartbeat does not exist (register it with `bankops schemas register`, or pass --register)")
      assertEquals(inspected.outLines, Nil)
      assertEquals(noTopic.code, 2)
      assertEquals(noTopic.err.trim, "bankops: topic no-such-heartbeats does not exist")
      assertEquals(registered.code, 0, registered.err)
    }
  }

  test("bank rules: the account numbers BankRules makes and accepts are those ISO 13616's mod-97 check accepts") {
    assert(BankRules.isValidIban(BankRules.SeededIban))
    assert(!BankRules.isValidIban("NL67OPEN0000000000"))
    List("NL66OPEN000000000", "NL66OPEN00000000000", "NL6xOPEN0000000000", "NL66OPEN1000000000", "nl66OPEN0000000000",
      "NL66open0000000000", "NL66OPEN00000000x0", "", "cash").foreach(s => assert(!BankRules.isValidIban(s), s))
    val numbers = List(0L, 1L, 999999999L) ++ List.fill(2000)(random.nextInt(1000000000).toLong)
    numbers.foreach { n =>
      assertEquals(BankRules.iban(n), ModelBank.iban(n))
      assert(ModelBank.validIban(BankRules.iban(n)), BankRules.iban(n))
      // One digit changed: ISO's check catches every single-digit error, and so must the bank's.
      val i = 2 + random.nextInt(16) match { case k if k >= 4 && k < 8 => k + 4; case k => k }
      val typo = BankRules.iban(n).updated(i, ((BankRules.iban(n)(i) - '0' + 1 + random.nextInt(9)) % 10 + '0').toChar)
      assert(!ModelBank.validIban(typo), typo)
      assert(!BankRules.isValidIban(typo), typo)
    }
  }

  test("Ctrl-C: exit 130, the summary marked interrupted, counting exactly the records that landed") {
    val topic = TopologyFixture.unique("beats-int")
    val topology = TopologyFiles.write(
      s"""{"topics": {"$topic": {"partitions": 2, "replicationFactor": 1, "records": [{"type": "nl.openweb.data.Heartbeat", "key": "time"}]}}}""")
    def landed = SandboxFixture.cli("inspect", "--topic", topic, "-o", "json").map(_.outLines.size)
    for {
      _ <- Setup.cli("apply the topology", "apply", "--topology", topology.toString)
      p <- CliProcess.start("heartbeat", "--topic", topic, "--rate", "500", "-o", "table")
      _ <- p.await(60.seconds, "heartbeats on the topic")(landed.map(_ >= 200))
      code <- p.interrupt
      n <- landed
    } yield {
      assertEquals(code, 130, os.read(p.err))
      val counted = """heartbeat: interrupted \(Ctrl-C\): (\d+) records""".r.findFirstMatchIn(os.read(p.out)).map(_.group(1).toInt)
      assertEquals(counted, Some(n), os.read(p.out))
    }
  }
}

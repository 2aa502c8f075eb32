package bankops.jobs.schemas

import cats.effect.IO
import io.circe.parser.parse

import java.util.UUID
import scala.concurrent.duration._

import bankops.services.avro.WireFormat
import bankops.services.bank.ConfirmMoneyTransfer
import bankops.services.registry.{RegistryClient, SchemaResolver}
import bankops.support.{IOSuite, PythonClients, Repo, SandboxFixture, Setup, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

class SchemasSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private def bankops(args: String*): IO[TestShell.Result] = SandboxFixture.cli(args: _*)

  private val registry: IO[RegistryClient] = SandboxFixture.registry

  private val defaultTopics = List("heartbeat", "commands", "command_feedback", "balance_changed")

  test("register creates exactly the eight subjects of the default topology; a second run keeps ids and versions".tag(OnSandbox.Alone)) {
    for {
      first <- bankops("schemas", "register", "-o", "json")
      r <- registry
      subjects <- r.subjects
      plan1 <- bankops("schemas", "plan", "-o", "json")
      second <- bankops("schemas", "register", "-o", "json")
      plan2 <- bankops("schemas", "plan", "-o", "json")
    } yield {
      assertEquals(first.code, 0, first.err)
      val ours = subjects.filter(s => defaultTopics.exists(t => s.startsWith(t + "-"))).toSet
      assertEquals(ours,
        Set("heartbeat-nl.openweb.data.Heartbeat", "commands-nl.openweb.data.ConfirmAccountCreation",
          "commands-nl.openweb.data.ConfirmMoneyTransfer", "command_feedback-nl.openweb.data.AccountCreationConfirmed",
          "command_feedback-nl.openweb.data.AccountCreationFailed", "command_feedback-nl.openweb.data.MoneyTransferConfirmed",
          "command_feedback-nl.openweb.data.MoneyTransferFailed", "balance_changed-nl.openweb.data.BalanceChanged"))
      assertEquals(plan1.code, 0, plan1.out)
      assertEquals(plan1.outLines.size, 8)
      assert(plan1.outLines.forall(_.contains("\"status\":\"unchanged\"")), plan1.out)
      assertEquals(second.code, 0, second.err)
      assertEquals(plan2.out, plan1.out)
    }
  }

  test("an incompatible change is refused with the reason, and nothing is registered, not even a compatible new subject") {
    val (hb, other) = (TopologyFixture.unique("hb"), TopologyFixture.unique("other"))
    val (v1, v2) = TopologyFiles.incompatibleHeartbeat(hb, (other, 1, "MoneyTransferConfirmed"))
    for {
      _ <- Setup.cli("register v1", "schemas", "register", "--topology", v1.toString)
      plan <- bankops("schemas", "plan", "--topology", v2.toString, "-o", "table")
      refused <- bankops("schemas", "register", "--topology", v2.toString, "-o", "json")
      r <- registry
      versions <- r.versions(s"$hb-nl.openweb.data.Heartbeat")
      otherVersion <- r.version(s"$other-nl.openweb.data.MoneyTransferConfirmed")
    } yield {
      assertEquals(plan.code, 1)
      assert(plan.out.contains("incompatible") && plan.out.contains("field node added without a default"), plan.out)
      assertEquals(refused.code, 1)
      assert(refused.err.contains(s"$hb-nl.openweb.data.Heartbeat incompatible; nothing was registered"), refused.err)
      assertEquals(versions, List(1))
      assertEquals(otherVersion, None)
    }
  }

  test("a compatible change registers a new version; --compatibility sets the subjects' level") {
    val hb = TopologyFixture.unique("hb")
    val v1 = TopologyFiles.write(TopologyFiles.topology((hb, 1, Map.empty, "Heartbeat", "time")))
    val v2 = TopologyFiles.write(TopologyFiles.topology((hb, 1, Map.empty, "Heartbeat", "time")))
    os.write.over(v2 / os.up / "Heartbeat.avsc",
      """{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data","fields":[{"name":"beat","type":"long"},{"name":"node","type":"string","default":""}]}""")
    val subject = s"$hb-nl.openweb.data.Heartbeat"
    for {
      _ <- Setup.cli("register v1", "schemas", "register", "--topology", v1.toString)
      check <- bankops("schemas", "check", (v2 / os.up / "Heartbeat.avsc").toString, "--topic", hb, "--topology", v1.toString, "-o", "json")
      second <- bankops("schemas", "register", "--topology", v2.toString, "--compatibility", "FULL")
      r <- registry
      versions <- r.versions(subject)
      level <- r.subjectCompatibility(subject)
      again <- bankops("schemas", "plan", "--topology", v2.toString, "--compatibility", "FULL")
    } yield {
      assertEquals(check.code, 0, check.err)
      assert(check.out.contains("\"status\":\"new-version\""), check.out)
      assertEquals(second.code, 0, second.err)
      assertEquals(versions, List(1, 2))
      assertEquals(level, "FULL")
      assertEquals(again.code, 0, again.out)
    }
  }

  test("whitespace and attribute order are no change: the canonical form decides") {
    val hb = TopologyFixture.unique("hb")
    val v1 = TopologyFiles.write(TopologyFiles.topology((hb, 1, Map.empty, "Heartbeat", "time")))
    val v2 = TopologyFiles.write(TopologyFiles.topology((hb, 1, Map.empty, "Heartbeat", "time")))
    os.write.over(v2 / os.up / "Heartbeat.avsc",
      "{ \"namespace\" : \"nl.openweb.data\",\n  \"fields\": [ {\"type\": \"long\", \"name\": \"beat\", \"doc\": \"a " +
        "counter\"} ],\n \"name\": \"Heartbeat\", \"type\": \"record\" }")
    for {
      _ <- Setup.cli("register v1", "schemas", "register", "--topology", v1.toString)
      plan <- bankops("schemas", "plan", "--topology", v2.toString, "-o", "json")
    } yield {
      assertEquals(plan.code, 0, plan.out)
      assert(plan.out.contains("\"status\":\"unchanged\""), plan.out)
    }
  }

  test("references: an imported type's subject is registered first and the user's schema resolves through it") {
    val topic = TopologyFixture.unique("payments")
    val ns = s"bankops.t${UUID.randomUUID().toString.take(8)}"
    val file = TopologyFiles.write(s"""{"topics": {"$topic": {"partitions": 1, "replicationFactor": 1,
      "records": [{"type": "$ns.Payment", "key": "id"}]}}}""")
    os.write(file / os.up / "Money.avsc", s"""{"type":"record","name":"Money","namespace":"$ns","fields":[{"name":"cents","type":"long"}]}""")
    os.write(file / os.up / "Payment.avsc",
      s"""{"type":"record","name":"Payment","namespace":"$ns","fields":[{"name":"id","type":"string"},{"name":"amount","type":"Money"}]}""")
    for {
      reg <- Setup.cli("register with a reference", "schemas", "register", "--topology", file.toString, "-o", "json")
      again <- bankops("schemas", "plan", "--topology", file.toString, "-o", "json")
      r <- registry
      latest <- r.version(s"$topic-$ns.Payment")
      schema <- new SchemaResolver(r).byId(latest.get.id)
    } yield {
      assertEquals(
        reg.outLines.map(l => parse(l).toOption.get.hcursor.get[String]("subject").toOption.get), List(s"$ns.Money", s"$topic-$ns.Payment"))
      assertEquals(latest.get.references.map(_.subject), List(s"$ns.Money"))
      assertEquals(schema.getField("amount").schema().getFullName, s"$ns.Money")
      assertEquals(again.code, 0, again.out)
    }
  }

  test("a value bankops encodes is decoded by confluent-kafka's AvroDeserializer (Python), an independent client".tag(OnSandbox.Alone)) {
    val t = ConfirmMoneyTransfer(UUID.randomUUID(), "12345678901234567890", 1050L, "cash", "NL66OPEN0000000000", "deposit ü")
    for {
      _ <- Setup.cli("register the default topology's subjects", "schemas", "register")
      r <- registry
      id <- r.version("commands-nl.openweb.data.ConfirmMoneyTransfer").map(_.get.id)
      bytes = WireFormat.Writer[ConfirmMoneyTransfer](id).apply(t).fold(e => fail(e.message), identity)
      settings <- SandboxFixture.settings
      out <- IO.blocking(os.proc(PythonClients.python, Repo.root / "tests" / "python" / "avro_decode.py", settings.registry.url.value, "commands")
          .call(stdin = bytes.map("%02x".format(_)).mkString + "\n", stderr = os.Pipe, check = false))
    } yield {
      assertEquals(out.exitCode, 0, out.err.text())
      val json = parse(out.out.text().trim).fold(e => fail(e.message), identity).hcursor
      assertEquals(json.get[String]("id"), Right(t.id.toString))
      assertEquals(json.get[Long]("amount"), Right(1050L))
      assertEquals(json.get[String]("description"), Right("deposit ü"))
    }
  }

  test("bad input and faults: invalid .avsc exit 2 with its name; unreachable registry exit 3") {
    val bad = os.temp(suffix = ".avsc", contents = """{"type": "record", "name": "X", "fields": [{"name": "a", "type": "lng"}]}""")
    for {
      check <- bankops("schemas", "check", bad.toString, "--topic", "heartbeat")
      down <- bankops("schemas", "plan", "--registry-url", "http://localhost:1", "--timeout", "3")
    } yield {
      assertEquals(check.code, 2)
      assert(check.err.contains(s"$bad: not a valid Avro schema") && check.err.contains("lng"), check.err)
      assertEquals(down.code, 3, down.err)
      assert(down.err.contains("schema registry at http://localhost:1 could not be reached"), down.err)
    }
  }
}

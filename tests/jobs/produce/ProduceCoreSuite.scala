package bankops.jobs.produce

import io.circe.Json
import io.circe.parser.parse

import java.time.Instant

import bankops.services.avro.AvroJsonRead
import bankops.services.bank.ConfirmMoneyTransfer
import bankops.services.contracts.{RecordKey, TopologyFile}
import bankops.support.Repo

class ProduceCoreSuite extends munit.FunSuite {
  private lazy val topology = TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(e => fail(e), identity)

  test("the record type: the topic's only one, --record by simple or full name, and the choices named when ambiguous or unknown") {
    assertEquals(RecordChoice.choose(topology, "heartbeat", None), Right(RecordChoice("nl.openweb.data.Heartbeat", Some(RecordKey.Time))))
    assertEquals(RecordChoice.choose(topology, "commands", Some("ConfirmMoneyTransfer")),
      Right(RecordChoice("nl.openweb.data.ConfirmMoneyTransfer", Some(RecordKey.Field("id")))))
    assertEquals(RecordChoice.choose(topology, "commands", Some("nl.openweb.data.ConfirmAccountCreation")).map(_.fullName),
      Right("nl.openweb.data.ConfirmAccountCreation"))
    val several = RecordChoice.choose(topology, "commands", None).left.toOption.getOrElse("")
    assert(several.contains("several record types") && several.contains("ConfirmAccountCreation, ConfirmMoneyTransfer"), several)
    val other = RecordChoice.choose(topology, "commands", Some("Heartbeat")).left.toOption.getOrElse("")
    assert(other.contains("carries ConfirmAccountCreation, ConfirmMoneyTransfer") && other.contains("not Heartbeat"), other)
    val undeclared = RecordChoice.choose(topology, "scratch", None).left.toOption.getOrElse("")
    assert(undeclared.contains("topic scratch is not in") && undeclared.contains("BalanceChanged"), undeclared)
    assertEquals(RecordChoice.choose(topology, "scratch", Some("Heartbeat")).map(_.fullName), Right("nl.openweb.data.Heartbeat"))
    assertEquals(RecordChoice.choose(topology, "scratch", Some("com.example.Thing")), Right(RecordChoice("com.example.Thing", None)))
    assert(RecordChoice.choose(topology, "scratch", Some("Thing")).left.exists(_.contains("no such record type")))
    assert(RecordChoice.choose(topology, "commands.dlq", None).left.exists(_.contains("declares no record type")))
  }

  test("a bank command without an id gets a fresh one; others and commands with an id are left as they are") {
    val transfer = "nl.openweb.data.ConfirmMoneyTransfer"
    val (given, fresh) = ValueText.withId(parse("""{"amount": 5}""").toOption.get, transfer)
    assertEquals(given.hcursor.get[String]("id").toOption, fresh.map(_.toString))
    assert(fresh.isDefined)
    val withId = parse("""{"id": "x"}""").toOption.get
    assertEquals(ValueText.withId(withId, transfer), (withId, None))
    assertEquals(ValueText.withId(parse("""{"beat": 1}""").toOption.get, "nl.openweb.data.Heartbeat")._2, None)
  }

  test("the key the topology declares: the field's text, or the time") {
    val v = parse("""{"id": "abc", "n": 5}""").toOption.get
    val now = Instant.parse("2026-01-01T00:00:00Z")
    assertEquals(ValueText.key(v, Some(RecordKey.Field("id")), now), Some("abc"))
    assertEquals(ValueText.key(v, Some(RecordKey.Field("n")), now), Some("5"))
    assertEquals(ValueText.key(v, Some(RecordKey.Time), now), Some("2026-01-01T00:00:00Z"))
    assertEquals(ValueText.key(v, None, now), None)
    assert(ValueText.parse("{nope").left.exists(_.startsWith("not JSON")))
  }

  test("invalid values name the field, what it expects and what it got; unknown fields are refused") {
    val schema = ConfirmMoneyTransfer.codec.schema.toOption.get
    def framed(j: String) = AvroJsonRead.framed(parse(j).toOption.get, schema, 7)
    val ok = """{"id":"6f1c2d3e-0000-4000-8000-000000000001","token":"t","amount":5,"from":"cash","to":"NL","description":"d"}"""
    assertEquals(framed(ok).map(_.take(5).toList), Right(List[Byte](0, 0, 0, 0, 7)))
    assertEquals(framed(ok.replace("5,", "\"x\",")).left.toOption, Some("amount: expected a long, got \"x\""))
    assertEquals(framed(ok.replace("}", ",\"extra\":1}")).left.toOption, Some("extra: nl.openweb.data.ConfirmMoneyTransfer has no such field"))
    assertEquals(framed(ok.replace("\"t\"", "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]")).left.toOption,
      Some("token: expected a string, got [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,..."))
  }

  test("the dry run shows the frame: schema id, subject, key, headers and the value as hex and base64") {
    val o = Outbound("--value", "t", None, Some("k"), List("a" -> "b"), Some(WriterSchema("t-R", 7, "R")), Some(Array[Byte](0, 0, 0, 0, 7, 2)))
    val j = o.json.hcursor
    assertEquals(j.get[String]("valueHex"), Right("00000000070" + "2"))
    assertEquals(j.get[String]("valueBase64"), Right("AAAAAAcC"))
    assertEquals(j.get[Int]("schemaId"), Right(7))
    assertEquals(j.downField("headers").downN(0).get[String]("value"), Right("b"))
    assert(o.text.contains("t-R") && o.text.contains("a=b"), o.text)
    assertEquals(Outbound("--tombstone", "t", Some(0), Some("k"), Nil, None, None).json.hcursor.get[Json]("valueHex"), Right(Json.Null))
  }
}

package bankops.jobs.replay

import io.circe.Json
import org.apache.avro.Schema
import org.scalacheck.{Gen, Prop}

import java.util.UUID

import bankops.services.avro.{AvroJson, AvroJsonRead, WireFormat}
import bankops.services.bank.ConfirmMoneyTransfer

class ReplayCoreSuite extends munit.ScalaCheckSuite {
  private val schema = ConfirmMoneyTransfer.codec.schema.toOption.get

  property("plain JSON back to Avro gives the same bytes (inspect, edit nothing, replay = identity)") {
    Prop.forAll(Gen.uuid, Gen.asciiPrintableStr, Gen.long) { (id: UUID, text: String, amount: Long) =>
      val t = ConfirmMoneyTransfer(id, "12345678901234567890", amount, "cash", text, text.reverse)
      val bytes = WireFormat.encode(1, t).toOption.get
      val datum = WireFormat.unframe(bytes).flatMap(WireFormat.decodeGeneric(_, schema)).toOption.get
      val back = AvroJsonRead.fromPlain(AvroJson.plain(datum, schema), schema).flatMap(WireFormat.encodeGeneric(_, schema)).map(WireFormat.frame(1, _))
      assertEquals(back.map(_.toList), Right(bytes.toList))
    }
  }

  test("errors name the field; defaults fill missing fields; unions and UUIDs read") {
    val s = new Schema.Parser().parse("""{"type":"record","name":"R","fields":[{"name":"u","type":{"type":"fixed","name":"Uuid","size":16}},
      {"name":"n","type":["null","long"],"default":null},{"name":"inner","type":{"type":"record","name":"I","fields":[{"name":"x","type":"int"}]}}]}""")
    def read(j: String) = AvroJsonRead.fromPlain(io.circe.parser.parse(j).toOption.get, s)
    assert(read("""{"u": "6f1c2d3e-0000-4000-8000-000000000001", "inner": {"x": 1}}""").isRight)
    assertEquals(read("""{"u": "6f1c2d3e-0000-4000-8000-000000000001", "inner": {"x": "one"}}""").left.toOption, Some("inner.x: expected an int"))
    assertEquals(read("""{"u": "nope", "inner": {"x": 1}}""").left.toOption, Some("u: expected a UUID"))
    assertEquals(read("""{"u": "6f1c2d3e-0000-4000-8000-000000000001"}""").left.toOption, Some("inner: missing (and it has no default)"))
    assertEquals(read("""{"u": "6f1c2d3e-0000-4000-8000-000000000001", "inner": {"x": 1}, "extra": 1}""").left.toOption, Some("extra: R has no such field"))
    assertEquals(AvroJsonRead.fromPlain(Json.fromLong(5), s.getField("n").schema()), Right(5L))
  }

  test("file lines: the envelope's fields are read back; malformed ones are named") {
    val l = FileLine.parseLine("""{"partition": 2, "offset": 9, "timestamp": "2026-11-21T10:00:00Z", "keyBase64": "AP8=",
      "headers": [{"key": "h", "value": "v"}, {"key": "b", "base64": "AAE="}], "record": "R", "value": {"a": 1}, "raw": "AAAAAAE="}""", 1).toOption.get
    assertEquals((l.partition, l.offset, l.timestamp), (Some(2), Some(9L), Some(java.time.Instant.parse("2026-11-21T10:00:00Z").toEpochMilli)))
    assertEquals(l.key.map(_.toList), Some(List[Byte](0, -1)))
    assertEquals(l.headers.map { case (k, v) => k -> v.toList }, List("h" -> "v".getBytes.toList, "b" -> List[Byte](0, 1)))
    assertEquals(FileLine.parseLine("""{"partition": "x"}""", 1).left.toOption, Some("partition: expected a partition number"))
    assert(FileLine.parseLine("""not json""", 1).left.exists(_.startsWith("not JSON")))
  }
}

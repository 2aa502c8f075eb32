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
      val bytes = WireFormat.Writer[ConfirmMoneyTransfer](1).apply(t).toOption.get
      val datum = WireFormat.decodeFramed(bytes, 1, new org.apache.avro.generic.GenericDatumReader[Any](schema)).toOption.get
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
}

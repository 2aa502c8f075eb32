package bankops.jobs.replay

import io.circe.Json
import org.apache.avro.Schema
import org.scalacheck.{Gen, Prop}

import java.util.UUID

import bankops.services.avro.{AvroJson, AvroJsonRead, WireFormat}
import bankops.services.bank.ConfirmMoneyTransfer

class ReplayCoreSuite extends bankops.support.PropertySuite {
  private val schema = ConfirmMoneyTransfer.codec.schema.toOption.get

  property("plain JSON back to Avro gives the same bytes (inspect, edit nothing, replay = identity)") {
    Prop.forAll(Gen.uuid, Gen.asciiPrintableStr, Gen.long) { (id: UUID, text: String, amount: Long) =>
      val t = ConfirmMoneyTransfer(id, "12345678901234567890", amount, "cash", text, text.reverse)
      val bytes = WireFormat.Writer[ConfirmMoneyTransfer](1).apply(t).toOption.get
      val datum = WireFormat.decodeFramed(bytes, 1, new org.apache.avro.generic.GenericDatumReader[Any](schema)).toOption.get
      val back =
        AvroJsonRead.fromPlain(AvroJson.plain(datum, schema), schema).flatMap(WireFormat.encodeGeneric(_, schema)).map(WireFormat.frame(1, _))
      assertEquals(back.map(_.toList), Right(bytes.toList))
    }
  }

  test("errors name the field; defaults fill missing fields; unions and UUIDs read") {
    val s = new Schema.Parser().parse("""{"type":"record","name":"R","fields":[{"name":"u","type":{"type":"fixed","name":"Uuid","size":16}},
      {"name":"n","type":["null","long"],"default":null},{"name":"inner","type":{"type":"record","name":"I","fields":[{"name":"x","type":"int"}]}}]}""")
    def read(j: String) = AvroJsonRead.fromPlain(io.circe.parser.parse(j).toOption.get, s)
    assert(read("""{"u": "6f1c2d3e-0000-4000-8000-000000000001", "inner": {"x": 1}}""").isRight)
    assertEquals(read("""{"u": "6f1c2d3e-0000-4000-8000-000000000001", "inner": {"x": "one"}}""").left.toOption,
      Some("inner.x: expected an int, got \"one\""))
    assertEquals(read("""{"u": "nope", "inner": {"x": 1}}""").left.toOption, Some("u: expected a UUID, got \"nope\""))
    assertEquals(read("""{"u": "6f1c2d3e-0000-4000-8000-000000000001"}""").left.toOption, Some("inner: missing (and it has no default)"))
    assertEquals(read("""{"u": "6f1c2d3e-0000-4000-8000-000000000001", "inner": {"x": 1}, "extra": 1}""").left.toOption,
      Some("extra: R has no such field"))
    assertEquals(AvroJsonRead.fromPlain(Json.fromLong(5), s.getField("n").schema()), Right(5L))
  }

  test("delivery report: the summary counts per target partition; a failure names where each source partition resumes") {
    import scala.concurrent.duration._
    val ok = DeliveryReport(30, List(10L, 0L, 20L), 0, Map.empty, 1500.millis)
    assertEquals(ok.summary("t"), "replay: 30 read, 30 acknowledged on t in 1.50 s, 20 records/s (per partition: 0=10 2=20), 0 failed")
    assertEquals(ok.resume(), None)
    val none = DeliveryReport(0, List(0L, 0L), 0, Map.empty, 0.millis)
    assertEquals(none.summary("t"), "replay: 0 read, 0 acknowledged on t in 0.00 s, 0 records/s (per partition: none), 0 failed")
    val failed = DeliveryReport(30, List(10L, 5L), 15, Map(3 -> 40L, 0 -> 12L), 2.seconds)
    assert(failed.summary("t").endsWith(", 15 in batches with failed deliveries"), failed.summary("t"))
    assertEquals(failed.resume(), Some("resume with --from offset per source partition: partition 0 from offset 12, partition 3 from offset 40"))
  }
}

package bankops.jobs.inspect

import io.circe.Json
import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecordBuilder}

import java.nio.ByteBuffer
import java.time.Instant
import java.util.UUID

import bankops.services.avro.AvroJson
import bankops.services.kafka.{PartitionRange, Position, StartAt, StopAt}
import bankops.services.records.Condition

class InspectCoreSuite extends munit.FunSuite {
  private val now = Instant.parse("2026-11-21T12:00:00Z")

  test("positions parse, with clear errors") {
    assertEquals(StartAt.parse("ago:15m", now), Right(StartAt.Time(Instant.parse("2026-11-21T11:45:00Z"))))
    assertEquals(StartAt.parse("ago:1h30m", now), Right(StartAt.Time(Instant.parse("2026-11-21T10:30:00Z"))))
    assertEquals(StartAt.parse("offset:42", now), Right(StartAt.Offset(42)))
    assertEquals(StartAt.parse("timestamp:2026-11-21T09:30:00+01:00", now), Right(StartAt.Time(Instant.parse("2026-11-21T08:30:00Z"))))
    assertEquals(StopAt.parse("end"), Right(StopAt.End))
    assert(StartAt.parse("offset:-1", now).left.exists(_.contains("not an offset")))
    assert(StartAt.parse("ago:soon", now).left.exists(_.contains("not a duration")))
    assert(StopAt.parse("beginning").left.exists(_.contains("not a stop position")))
    assert(StartAt.parse("timestamp:1969-12-31T23:59:59.999Z", now).left.exists(_.contains("outside the times Kafka holds")))
    assert(StopAt.parse("timestamp:+292278995-01-01T00:00:00Z").left.exists(_.contains("outside the times Kafka holds")))
    assert(StartAt.parse("ago:100000d", now).left.exists(_.contains("'ago:100000d' is outside the times Kafka holds")))
    assertEquals(StartAt.parse("timestamp:1970-01-01", now), Right(StartAt.Time(Instant.EPOCH)))
  }

  test("ranges: clamped to the log; --to offset is inclusive; times resolve through the broker's answer") {
    assertEquals(Position.range(StartAt.Beginning, StopAt.End, 10, 20, None, None), PartitionRange(10, Some(20)))
    assertEquals(Position.range(StartAt.Offset(3), StopAt.Offset(14), 10, 20, None, None), PartitionRange(10, Some(15)))
    assertEquals(Position.range(StartAt.Offset(30), StopAt.End, 10, 20, None, None), PartitionRange(20, Some(20)))
    assertEquals(Position.range(StartAt.Time(now), StopAt.Never, 10, 20, Some(17), None), PartitionRange(17, None))
    assertEquals(Position.range(StartAt.Time(now), StopAt.Time(now), 10, 20, None, None), PartitionRange(20, Some(20)))
    assert(Position.range(StartAt.End, StopAt.End, 0, 5, None, None).isEmpty)
  }

  test("--where parses comparisons and matches numbers, text and nested fields") {
    val v = Json.obj("amount" -> Json.fromLong(1500), "from" -> Json.fromString("cash"), "meta" -> Json.obj("n" -> Json.fromInt(2)))
    def m(s: String) = Condition.parse(s).fold(fail(_), _.matches(v))
    assert(m("amount>1000")); assert(!m("amount<1000")); assert(m("amount>=1500")); assert(m("amount=1500"))
    assert(m("from=cash")); assert(m("from!=NL66OPEN0000000000")); assert(m("meta.n<=2")); assert(!m("missing=1"))
    assert(Condition.parse("amount>lots").left.exists(_.contains("needs a number")))
    assert(Condition.parse("no operator").isLeft)
  }

  test("plain JSON: unions unwrapped, enums as text, UUIDs as text, decimals exact, timestamps ISO, bytes base64") {
    val schema = new Schema.Parser().parse("""{"type":"record","name":"R","fields":[
      {"name":"u","type":{"type":"fixed","name":"Uuid","size":16}},
      {"name":"opt","type":["null","string"]},
      {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
      {"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
      {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
      {"name":"day","type":{"type":"int","logicalType":"date"}},
      {"name":"raw","type":"bytes"},
      {"name":"big","type":"long"},
      {"name":"tags","type":{"type":"map","values":"int"}}]}""")
    val uuid = UUID.fromString("6f1c2d3e-0000-4000-8000-000000000001")
    val ub = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits).putLong(uuid.getLeastSignificantBits).array()
    val r = new GenericRecordBuilder(schema)
      .set("u", new GenericData.Fixed(schema.getField("u").schema(), ub))
      .set("opt", "x").set("e", new GenericData.EnumSymbol(schema.getField("e").schema(), "B"))
      .set("d", ByteBuffer.wrap(java.math.BigInteger.valueOf(123456).toByteArray))
      .set("ts", 1795300000123L).set("day", 20413).set("raw", ByteBuffer.wrap(Array[Byte](1, 2, 3)))
      .set("big", Long.MaxValue).set("tags", java.util.Map.of("a", 1)).build()
    assertEquals(AvroJson.plain(r, schema),
      Json.obj(
        "u" -> Json.fromString(uuid.toString), "opt" -> Json.fromString("x"), "e" -> Json.fromString("B"),
        "d" -> Json.fromString("1234.56"), "ts" -> Json.fromString("2026-11-21T22:26:40.123Z"), "day" -> Json.fromString("2025-11-21"),
        "raw" -> Json.fromString("AQID"), "big" -> Json.fromLong(Long.MaxValue), "tags" -> Json.obj("a" -> Json.fromInt(1))))
    assertEquals(AvroJson.avroJson(r, schema).hcursor.downField("opt").get[String]("string"), Right("x"))
  }

  test("count and limit step: hidden records are always counted, shown ones until the limit; after it they are dropped") {
    def decoded(record: String) = bankops.services.records.Decoded(
      bankops.services.records.Envelope("t", 0, 0, None, "CreateTime", None, Nil, Some(1), Some(record), None, None, None), None, Some(1))
    val chunk = fs2.Chunk("A", "B", "A", "A", "B").map(decoded)
    val lines = ChunkLines.of(List("a1", null, "a2", "a3", null), InspectStats.tally(chunk, 3))
    def text(n: Int) = lines.lines.take(n).map(new String(_, java.nio.charset.StandardCharsets.UTF_8)).mkString
    val (all, outAll, doneAll) = InspectStats.step(InspectStats.empty, chunk, lines, None)
    assertEquals((all.read, all.shown, all.byRecord), (5L, 3L, Map("A" -> 3L, "B" -> 2L)))
    assertEquals((text(outAll), doneAll), ("a1a2a3", false))
    val (two, outTwo, doneTwo) = InspectStats.step(InspectStats.empty, chunk, lines, Some(2))
    assertEquals((two.read, two.shown, text(outTwo), doneTwo), (4L, 2L, "a1a2", true))
    assertEquals(two.byRecord, Map("A" -> 2L, "B" -> 2L))
    val (more, outMore, doneMore) = InspectStats.step(all, chunk, lines, Some(4))
    assertEquals((more.read, more.shown, text(outMore), doneMore), (8L, 4L, "a1", true))
    val (none, outNone, _) = InspectStats.step(more, chunk, lines, Some(4))
    assertEquals((none.read - more.read, outNone), (2L, 0))
  }

  test("filters no record read can match are named: an unknown record type, a field none of their schemas has") {
    val schema = new Schema.Parser().parse(
      """{"type": "record", "name": "ConfirmMoneyTransfer", "namespace": "nl.openweb.data", "fields": [{"name": "amount", "type": "long"}, {"name": "to", "type": "string"}]}""")
    val d = bankops.services.records.Decoded(bankops.services.records.Envelope("t", 0, 0, None, "CreateTime", None, Nil, Some(1),
        Some("nl.openweb.data.ConfirmMoneyTransfer"), None, None, None), Some(schema), Some(1))
    val stats = InspectStats.tally(fs2.Chunk(d, d), 0)
    def warnings(records: List[String], where: List[String]) =
      stats.filterWarnings(bankops.services.records.RecordFilter(records, None, where.map(w => Condition.parse(w).toOption.get)))
    assertEquals(warnings(List("ConfirmMoneyTransfer", "nl.openweb.data.ConfirmMoneyTransfer"), List("amount>5", "to=x")), Nil)
    assertEquals(warnings(List("MoneyTransferConfirmed"), List("amout>5")),
      List(
        "--record MoneyTransferConfirmed: no record of that type among the 2 read (types read: ConfirmMoneyTransfer)",
        "--where: no record read has a field 'amout' (fields: amount, to)"))
    assertEquals(InspectStats.empty.filterWarnings(bankops.services.records.RecordFilter(List("X"), None, Nil)), Nil)
  }
}

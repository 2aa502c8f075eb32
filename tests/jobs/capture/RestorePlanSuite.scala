package bankops.jobs.capture

import org.apache.avro.Schema

import scala.jdk.CollectionConverters._

import bankops.services.records.RecordLine
import bankops.services.registry.SchemaReference

/** Pure parts of capture and restore: names, positions, configs, and which fields --redact can mask. */
class RestorePlanSuite extends munit.FunSuite {
  private val plan = RestorePlan("inc.", Map("commands.dlq" -> "dead"), "g.")

  private val money = CapturedSchema(7, "nl.openweb.data.Money", 1, "{}", Nil)
  private def uses(id: Int, subject: String, topic: String) =
    CapturedSchema(id, subject, 1, "{}", List(SchemaReference("nl.openweb.data.Money", "nl.openweb.data.Money", 1)), Some(topic))

  test("topics take the prefix or their rename; subjects named after a topic follow it, others take the prefix") {
    assertEquals((plan.topic("commands"), plan.topic("commands.dlq"), plan.group("handler")), ("inc.commands", "dead", "g.handler"))
    val topics = List("commands", "commands.dlq")
    assertEquals(plan.subject("commands-nl.openweb.data.ConfirmMoneyTransfer", topics), "inc.commands-nl.openweb.data.ConfirmMoneyTransfer")
    // The longest topic name wins: commands.dlq's subject is not taken for one of commands.
    assertEquals(plan.subject("commands.dlq-value", topics), "dead-value")
    assertEquals(plan.subject("nl.openweb.data.Money", topics), "inc.nl.openweb.data.Money")
    assertEquals(plan.subjects(List(money, uses(8, "commands-nl.openweb.data.Transfer", "commands")), topics),
      Right(Map("nl.openweb.data.Money" -> "inc.nl.openweb.data.Money",
          "commands-nl.openweb.data.Transfer" -> "inc.commands-nl.openweb.data.Transfer")))
  }

  test("a schema no restored record uses, or a live subject kept by an empty prefix, is refused before anything is written") {
    val topics = List("commands")
    def refused(p: RestorePlan, schemas: List[CapturedSchema]) = p.subjects(schemas, topics).left.toOption.getOrElse(fail("not refused"))
    // Referenced by nothing, used by no captured topic: an archive capture did not write.
    assert(refused(plan, List(money)).contains("subject nl.openweb.data.Money (schema id 7) belongs to no topic of the archive"))
    assert(refused(plan, List(uses(8, "other-nl.openweb.data.Transfer", "other"))).contains("belongs to no topic of the archive"))
    val renamesOnly = RestorePlan("", Map("commands" -> "copy"), "")
    assert(refused(renamesOnly, List(money, uses(8, "commands-nl.openweb.data.Transfer", "commands")))
        .contains("subject nl.openweb.data.Money is not named after a topic, so without --topic-prefix it would be registered under its live name"))
    assertEquals(renamesOnly.subjects(List(uses(8, "commands-X", "commands").copy(references = Nil)), topics), Right(Map("commands-X" -> "copy-X")))
  }

  private def line(p: Int, o: Long, time: String = "CreateTime", raw: Option[Array[Byte]] = Some(Array[Byte](1, 2))) =
    RecordLine(o.toInt, Some("t"), Some(p), Some(o), Some(0L), Some(time), Some("key".getBytes), List("h" -> "vv".getBytes), None, None,
      None, None, raw)

  test("the first pass: where each group lands among the restored records, the largest record, and lines a restore cannot write") {
    val groups = List(CapturedOffset("g", "t", 0, 12L, 5L), CapturedOffset("g", "t", 1, 3L, 0L), CapturedOffset("h", "t", 0, 99L, 0L))
    val counter = new TopicScan.Counter("records/t.jsonl", 2, groups)
    // Gaps: transaction markers, a filter.
    val lines = List(line(0, 10), line(0, 11), line(1, 5, "LogAppendTime"), line(0, 13, raw = Some(new Array[Byte](40))), line(0, 20))
    assertEquals(lines.map(counter.add), List.fill(5)(Right(())))
    assertEquals(counter.result,
      TopicScan(5, 3 + 40 + 3, 1, Map(0 -> 10L, 1 -> 5L), Map(groups(0) -> 2L, groups(1) -> 0L, groups(2) -> 4L), Map(0 -> 4L, 1 -> 1L)))
    assertEquals(counter.add(line(2, 1)), Left("records/t.jsonl:1: partition 2, but the captured topic had 2 (0 to 1)"))
    assertEquals(counter.add(line(0, 21, raw = None).copy(value = Some(io.circe.Json.obj()))).left.map(_.take(49)),
      Left("records/t.jsonl:21: a value without its raw bytes"))
    assertEquals(counter.add(line(0, 22).copy(offset = None)), Left("records/t.jsonl:22: no offset, or a negative one"))
  }

  test("--resume: a copy's record is the archive's line as restore wrote it, a frame's schema id aside; more than the archive: refused") {
    import org.apache.kafka.clients.consumer.ConsumerRecord
    import org.apache.kafka.common.header.internals.{RecordHeader, RecordHeaders}
    def frame(id: Int, payload: Byte*) = Array[Byte](0) ++ java.nio.ByteBuffer.allocate(4).putInt(id).array() ++ payload
    def copy(key: Array[Byte], value: Array[Byte], time: Long = 0L, headers: List[(String, Array[Byte])] = List("h" -> "vv".getBytes)) =
      new ConsumerRecord[Array[Byte], Array[Byte]]("t", 0, 0L, time, org.apache.kafka.common.record.TimestampType.CREATE_TIME, -1, -1, key, value,
        new RecordHeaders(headers.map { case (k, v) => new RecordHeader(k, v): org.apache.kafka.common.header.Header }.asJava),
        java.util.Optional.empty[Integer]())
    val captured = line(0, 1, raw = Some(frame(7, 1, 2, 3)))
    assert(RestoreResume.same(captured, copy("key".getBytes, frame(42, 1, 2, 3))), "the id translated")
    assert(!RestoreResume.same(captured, copy("key".getBytes, frame(42, 1, 2, 4))), "another payload")
    assert(!RestoreResume.same(captured, copy("key".getBytes, frame(42, 1, 2, 3), time = 5L)), "another time")
    assert(!RestoreResume.same(captured, copy(null, frame(7, 1, 2, 3))), "no key")
    assert(!RestoreResume.same(captured, copy("key".getBytes, frame(7, 1, 2, 3), headers = Nil)), "no header")
    assert(!RestoreResume.same(line(0, 1, raw = Some(Array[Byte](1, 2))), copy("key".getBytes, Array[Byte](1, 3))), "other bytes")
    assert(RestoreResume.same(line(0, 1, raw = None), copy("key".getBytes, null)), "a tombstone")
    assertEquals(RestoreResume.excess(Map(0 -> 3L, 1 -> 2L), Map(0 -> 3L, 1 -> 5L)), None)
    assertEquals(RestoreResume.excess(Map(0 -> 3L, 2 -> 1L), Map(0 -> 3L)), Some((2, 1L, 0L)))
  }

  test("restored topics keep their records for good, as captured, with no more in-sync replicas asked than they have") {
    val captured = Map("min.insync.replicas" -> "2", "retention.ms" -> "900000", "cleanup.policy" -> "delete",
      "message.timestamp.type" -> "LogAppendTime", "message.timestamp.after.max.ms" -> "3600000")
    assertEquals(RestorePlan.configs(captured, 1, keepCompaction = false, 100),
      Map("min.insync.replicas" -> "1", "retention.ms" -> "-1", "retention.bytes" -> "-1", "cleanup.policy" -> "delete",
        "message.timestamp.type" -> "CreateTime"))
    assertEquals(RestorePlan.configs(captured, 3, keepCompaction = false, 100)("min.insync.replicas"), "2")
    // Compaction would drop records the archive holds: off unless asked.
    val compacted = Map("cleanup.policy" -> "compact,delete")
    assertEquals(RestorePlan.configs(compacted, 1, keepCompaction = false, 100)("cleanup.policy"), "delete")
    assertEquals(RestorePlan.configs(compacted, 1, keepCompaction = true, 100)("cleanup.policy"), "compact,delete")
    // Room for the largest captured record.
    assertEquals(RestorePlan.configs(Map.empty, 1, keepCompaction = false, 2000000).get("max.message.bytes"), Some("2001024"))
    assertEquals(RestorePlan.configs(Map("max.message.bytes" -> "5000000"), 1, keepCompaction = false, 2000000)("max.message.bytes"), "5000000")
  }

  test("--redact takes text, bytes and number fields, at any depth; an enum, a fixed or a missing field is refused") {
    val schema = new Schema.Parser().parse(
      """{"type":"record","name":"R","fields":[{"name":"token","type":"string"},{"name":"kind","type":{"type":"enum","name":"K","symbols":["A"]}},
        |{"name":"id","type":{"type":"fixed","name":"U","size":16}},{"name":"inner","type":["null",{"type":"record","name":"I",
        |"fields":[{"name":"pin","type":"long"}]}]}]}""".stripMargin)
    assertEquals(List("token", "inner.pin", "kind", "id", "nope", "inner").map(p => Redaction.holds(schema, p.split('.').toList)),
      List(true, true, false, false, false, false))
  }
}

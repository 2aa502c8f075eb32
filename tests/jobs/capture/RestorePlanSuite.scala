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

  test("--into-non-empty: a record's digest is the archive line's with its frame's id aside; another key, value, header or time differs") {
    def frame(id: Int, payload: Byte*) = Some(Array[Byte](0) ++ java.nio.ByteBuffer.allocate(4).putInt(id).array() ++ payload)
    val headers = List("h" -> "v".getBytes)
    val d = RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), headers, Some(5L))
    assertEquals(RestoreResume.digest(0, Some("k".getBytes), frame(42, 1, 2), headers, Some(5L)), d)
    val others = List(RestoreResume.digest(1, Some("k".getBytes), frame(7, 1, 2), headers, Some(5L)),
      RestoreResume.digest(0, Some("j".getBytes), frame(7, 1, 2), headers, Some(5L)),
      RestoreResume.digest(0, None, frame(7, 1, 2), headers, Some(5L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 3), headers, Some(5L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), Nil, Some(5L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), List("h" -> null), Some(5L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), headers, Some(6L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), headers, None),
      // Header values are compared exactly: one that starts like a frame is not a frame to restore.
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), List("h" -> frame(9, 1).get), Some(5L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), List("h" -> frame(8, 1).get), Some(5L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), List("Aa" -> "v".getBytes), Some(5L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), List("BB" -> "v".getBytes), Some(5L)),
      RestoreResume.digest(0, Some("k".getBytes), frame(7, 1, 2), headers, Some(5L + (1L << 32) + 1)))
    assertEquals(others.distinct.size, others.size)
    assert(!others.contains(d))
  }

  test("a manifest whose counts are not its records files' is named; an existing target's timestamps and compaction are said") {
    val m = ArchiveManifest(ArchiveManifest.Format, 1, "x", "", CaptureAsked(List("t"), "beginning", "end", Nil, Nil, Nil, Nil),
      List(TopicSpan("t", List(PartitionSpan(0, 3, Some(0L), Some(2L), None, None), PartitionSpan(2, 1, Some(0L), Some(0L), None, None)))), Nil)
    assertEquals(m.countsDiffer(Map("t" -> Map(0 -> 3L, 2 -> 1L))), None)
    assertEquals(m.countsDiffer(Map("t" -> Map(0 -> 3L, 2 -> 1L, 1 -> 4L))),
      Some("manifest.json: t partition 1: the manifest counts 0 record(s), records/t.jsonl holds 4: the archive was changed after capture; " +
        "nothing created"))
    assert(m.countsDiffer(Map("t" -> Map(0 -> 2L, 2 -> 1L))).exists(_.startsWith("manifest.json: t partition 0: the manifest counts 3")))
    val scan = TopicScan(4, 10, 4, Map.empty, Map.empty, Map(0 -> 4L))
    val compact = Map("cleanup.policy" -> "compact")
    assertEquals(RestorePlan.differences("c", compact, None, keepCompaction = false, scan).map(_.take(60)),
      List("c: 4 record(s) had the broker's append time (LogAppendTime): restored as CreateTime with the captured times",
        "c: the captured topic is compacted; the copy is not (cleanup.policy=delete), so it keeps every restored record " +
          "(--keep-compaction to compact it)").map(_.take(60)))
    // An existing target keeps its own settings: the broker's times, its compaction, or (a resume) none.
    assertEquals(RestorePlan.differences("c", compact, Some(Map("message.timestamp.type" -> "LogAppendTime", "cleanup.policy" -> "compact")),
        keepCompaction = false, scan).map(_.take(40)),
      List("c: the existing topic stamps the broker's append time", "c: the existing topic is compacted (cleanup.policy=compact)").map(_.take(40)))
    assertEquals(RestorePlan.differences("c", compact, Some(Map("cleanup.policy" -> "delete")), keepCompaction = false,
        scan.copy(logAppendTimes = 0)),
      List("c: the captured topic is compacted; the copy is not (cleanup.policy=delete), so it keeps every restored record"))
  }

  test("--redact masks an account row's column that holds what the field holds; the iban, the rows' key, is kept") {
    val row = CapturedAccount("NL1", "secret", 150L, "AUTO", -500L)
    assertEquals(CapturedAccounts.redacted(List(row), List("token")), List(row.copy(token = "****")))
    assertEquals(CapturedAccounts.redacted(List(row), List("new_balance", "a_type", "description")), List(row.copy(amount = 0L, `type` = "****")))
    assertEquals(CapturedAccounts.redacted(List(row), List("from_to")), List(row))
    assertEquals(CapturedAccounts.redacted(List(row), List("inner.token")), List(row.copy(token = "****")))
    // The manifest keeps no operand of a redacted field, text or number, nor a key a masked field held.
    val o = CaptureOptions(ArchiveOut(os.pwd / "x.zip"), redact = List("new_balance"),
      filter = bankops.services.records.RecordFilter(Nil, Some("NL1"),
        List(bankops.services.records.Condition(List("new_balance"), ">", "1000"),
          bankops.services.records.Condition(List("from_to"), "=", "cash"))))
    assertEquals(o.filterText(Set("NL1")), List("--key ****", "--where new_balance>****", "--where from_to=cash"))
    assertEquals(o.filterText(), List("--key NL1", "--where new_balance>****", "--where from_to=cash"))
  }

  test("--open-transactions: stop, wait, wait:DURATION or read; records past the last stable offset counted, marked only then") {
    import scala.concurrent.duration._
    assertEquals(List("stop", "wait", "wait:5m", "read").map(AtOpenTransaction.parse),
      List(Right(AtOpenTransaction.Stop), Right(AtOpenTransaction.Wait(60.seconds)), Right(AtOpenTransaction.Wait(5.minutes)),
        Right(AtOpenTransaction.Read)))
    assert(AtOpenTransaction.parse("commit").isLeft && AtOpenTransaction.parse("wait:").isLeft)
    assert(AtOpenTransaction.parse("wait:100000d").left.exists(_.contains("waits longer than 24h")))
    val tp = new org.apache.kafka.common.TopicPartition("t", 0)
    val tq = new org.apache.kafka.common.TopicPartition("t", 1)
    assertEquals(CaptureCut.open(Map(tp -> 11L, tq -> 4L), Map(tp -> 21L, tq -> 4L)), Map(tp -> (11L, 21L)))
    val spans = List(10L, 11L, 12L).foldLeft(Option.empty[PartitionSpan])((s, o) => Some(PartitionSpan.next(s, 0, o, Some(o * 10), Some(11L))))
    assertEquals(spans, Some(PartitionSpan(0, 3, Some(10L), Some(12L), Some(100L), Some(120L), Some(Uncommitted(11L, 2)))))
    // A span read past no last stable offset is written with version 1's fields only.
    import io.circe.syntax._
    import ArchiveManifest._
    val plain = PartitionSpan(0, 1, Some(1L), Some(1L), None, None)
    assertEquals(plain.asJson.noSpaces, """{"partition":0,"records":1,"firstOffset":1,"lastOffset":1,"firstTime":null,"lastTime":null}""")
    assertEquals(io.circe.parser.decode[PartitionSpan](plain.asJson.noSpaces), Right(plain))
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

package bankops.jobs.groups

import org.apache.kafka.common.TopicPartition

import java.time.Instant

/** The reset plan for every target kind, from facts alone: where each partition goes, what is re-read or skipped,
  * and targets outside the log clamped to it with a note saying so.
  */
class ResetPlanSuite extends munit.FunSuite {
  private val now = Instant.parse("2026-11-23T10:00:00Z")
  private val cwd = os.Path("/tmp")
  private def tp(p: Int) = new TopicPartition("commands", p)
  // Partition 0: log 100..200, committed 150. Partition 1: log 0..50, committed 50 (caught up). Partition 2: never committed.
  private val facts = List(PartitionFacts(tp(0), Some(150), 100, 200), PartitionFacts(tp(1), Some(50), 0, 50), PartitionFacts(tp(2), None, 10, 20))
  private def plan(target: ResetTarget, times: Map[TopicPartition, Option[Long]] = Map.empty, file: Map[TopicPartition, Long] = Map.empty) =
    ResetPlan("g", target, facts, times, file)
  private def targets(p: ResetPlan) = p.rows.map(_.target)
  private def notes(p: ResetPlan) = p.rows.map(_.note)

  test("earliest and latest: the log start and the end") {
    assertEquals(targets(plan(ResetTarget.Earliest)), List(Some(100L), Some(0L), Some(10L)))
    val latest = plan(ResetTarget.Latest)
    assertEquals(targets(latest), List(Some(200L), Some(50L), Some(20L)))
    assertEquals(latest.rows.map(_.skip), List(Some(50L), Some(0L), None))
    assertEquals(latest.changed.map(_.tp.partition), List(0, 2), "partition 1 is already at its end; 2 has nothing committed")
    assertEquals(latest.skip, 50L)
  }

  test("offset:N inside the log moves there; before the log start or past the end it is clamped, and the note says so") {
    val p = plan(ResetTarget.Offset(120))
    assertEquals(targets(p), List(Some(120L), Some(50L), Some(20L)))
    assertEquals(p.rows.head.reread, Some(30L))
    assertEquals(p.rows.head.note, None)
    assertEquals(notes(p).drop(1), List(Some("offset 120 is past the end 50: clamped to it"), Some("offset 120 is past the end 20: clamped to it")))
    val early = plan(ResetTarget.Offset(5))
    assertEquals(targets(early), List(Some(100L), Some(5L), Some(10L)))
    assertEquals(notes(early),
      List(Some("offset 5 is before the log start 100: clamped to it"), None, Some("offset 5 is before the log start 10: clamped to it")))
    assertEquals(early.reread, 50L + 45L)
  }

  test("timestamp: the broker's offset for the time; no record that late means the end; an offset before the log start is clamped") {
    val at = ResetTarget.Time(Instant.parse("2026-11-23T09:00:00Z"))
    val p = plan(at, Map(tp(0) -> Some(90L), tp(1) -> Some(20L), tp(2) -> None))
    assertEquals(targets(p), List(Some(100L), Some(20L), Some(20L)))
    assert(p.rows.head.note.exists(_.contains("before the log start 100")), p.rows.head.note)
    assertEquals(p.rows(1).reread, Some(30L))
    assertEquals(p.rows(2).note, Some("no record at or after 2026-11-23T09:00:00Z: the end"))
  }

  test("ago: is a time resolved against now when parsed") {
    assertEquals(ResetTarget.parse("ago:15m", now, cwd), Right(ResetTarget.Time(Instant.parse("2026-11-23T09:45:00Z"))))
  }

  test("shift:±N moves from the committed offset, clamped; a partition with nothing committed is left as is") {
    val back = plan(ResetTarget.Shift(-70))
    assertEquals(targets(back), List(Some(100L), Some(0L), None))
    assertEquals(back.rows.map(_.reread), List(Some(50L), Some(50L), None))
    assertEquals(notes(back),
      List(Some("offset 80 (150 - 70) is before the log start 100: clamped to it"),
        Some("offset -20 (50 - 70) is before the log start 0: clamped to it"),
        Some("no committed offset to shift from: left as is")))
    val forward = plan(ResetTarget.Shift(10))
    assertEquals(targets(forward), List(Some(160L), Some(50L), None))
    assertEquals(forward.rows(1).note, Some("offset 60 (50 + 10) is past the end 50: clamped to it"))
    assertEquals(forward.changed.map(_.tp.partition), List(0))
  }

  test("file: the saved offsets; partitions the file does not name are left as is") {
    val file = ResetTarget.File(os.Path("/tmp/before.json"))
    val p = plan(file, file = Map(tp(0) -> 140L, tp(1) -> 50L))
    assertEquals(targets(p), List(Some(140L), Some(50L), None))
    assertEquals(p.rows(2).note, Some("not in before.json: left as is"))
    assertEquals(p.offsets, Map("g" -> Map(tp(0) -> 140L)))
    assertEquals(p.current, List(("g", tp(0), 150L), ("g", tp(1), 50L)))
  }

  test("a plan that moves nothing is empty") {
    val p = plan(ResetTarget.File(os.Path("/tmp/f.json")), file = Map(tp(0) -> 150L, tp(1) -> 50L))
    assert(p.isEmpty)
    assertEquals(p.offsets, Map.empty[String, Map[TopicPartition, Long]])
  }

  test("reset targets parse, and bad ones are named") {
    assertEquals(ResetTarget.parse("earliest", now, cwd), Right(ResetTarget.Earliest))
    assertEquals(ResetTarget.parse("beginning", now, cwd), Right(ResetTarget.Earliest))
    assertEquals(ResetTarget.parse("latest", now, cwd), Right(ResetTarget.Latest))
    assertEquals(ResetTarget.parse("end", now, cwd), Right(ResetTarget.Latest))
    assertEquals(ResetTarget.parse("offset:42", now, cwd), Right(ResetTarget.Offset(42)))
    assertEquals(ResetTarget.parse("timestamp:2026-11-23T09:30:00Z", now, cwd), Right(ResetTarget.Time(Instant.parse("2026-11-23T09:30:00Z"))))
    assertEquals(ResetTarget.parse("shift:-100", now, cwd), Right(ResetTarget.Shift(-100)))
    assertEquals(ResetTarget.parse("shift:+5", now, cwd), Right(ResetTarget.Shift(5)))
    assertEquals(ResetTarget.parse("file:saved/offsets.json", now, cwd), Right(ResetTarget.File(os.Path("/tmp/saved/offsets.json"))))
    assert(ResetTarget.parse("shift:0", now, cwd).left.exists(_.contains("not a shift")))
    assert(ResetTarget.parse("shift:back", now, cwd).left.exists(_.contains("'back' is not a shift")))
    assert(ResetTarget.parse("offset:-1", now, cwd).left.exists(_.contains("not an offset")))
    assert(ResetTarget.parse("file:", now, cwd).isLeft)
    assertEquals(ResetTarget.parse("yesterday", now, cwd).left.toOption.get,
      "'yesterday' is not a reset target (earliest, latest, offset:N, timestamp:ISO-8601, ago:DURATION, shift:±N, file:PATH)")
  }

  test("the offsets file: what --save-to writes, file: reads back; a bad file is named") {
    val text = OffsetsFile.render(List(("g", tp(1), 50L), ("g", tp(0), 150L), ("h", tp(0), 7L)), now)
    val f = os.Path("/tmp/x.json")
    val entries = OffsetsFile.parse(text, f).toOption.get
    assertEquals(OffsetsFile.offsets(entries, "g", Set("commands")), Map(tp(0) -> 150L, tp(1) -> 50L))
    assertEquals(OffsetsFile.offsets(entries, "h", Set("commands")), Map(tp(0) -> 7L))
    assertEquals(OffsetsFile.offsets(entries, "g", Set("other")), Map.empty[TopicPartition, Long])
    assert(OffsetsFile.parse("{\"offsets\": 3}", f).left.exists(_.message.startsWith("/tmp/x.json is not an offsets file")))
    assertEquals(OffsetsFile.parse("""{"offsets": [{"group": "g", "topic": "t", "partition": 0, "offset": -2}]}""", f).left.map(_.exitCode), Left(2))
  }
}

package bankops.jobs.latency

import java.time.Instant
import java.util.UUID
import scala.concurrent.duration._

class StepResultSuite extends munit.FunSuite {
  private def probe(step: Int, outcome: ProbeOutcome, times: (Measure, Double)*) =
    ProbeResult(1, step, UUID.randomUUID(), Instant.EPOCH, times.toMap, outcome)

  private val measures = List(Measure.Feedback, Measure.Balance, Measure.Db)

  test("percentiles per measure; a timed-out probe counts as the timeout for what it missed") {
    val probes = List(
      probe(0, ProbeOutcome.Confirmed, Measure.Feedback -> 10.0, Measure.Balance -> 11.0, Measure.Db -> 30.0),
      probe(0, ProbeOutcome.Confirmed, Measure.Feedback -> 20.0, Measure.Balance -> 21.0, Measure.Db -> 40.0),
      probe(0, ProbeOutcome.TimedOut(List(Measure.Db)), Measure.Feedback -> 30.0, Measure.Balance -> 31.0))
    val s = StepResult.of(0, StepLoad(100, 99.5, 0), probes, Nil, measures, 5.seconds, 30)
    assertEquals((s.probes, s.timeouts, s.failed), (3, 1, 0))
    assertEqualsDouble(s.measures(Measure.Feedback).max, 30.0, 0.05)
    assertEqualsDouble(s.measures(Measure.Feedback).p50, 20.0, 0.05)
    assertEqualsDouble(s.measures(Measure.Db).max, 5000.0, 5.0)
    assertEquals(s.measures(Measure.Db).count, 3L)
  }

  test("a refused deposit counts for feedback only (it changes no balance)") {
    val probes = List(
      probe(0, ProbeOutcome.Confirmed, Measure.Feedback -> 10.0, Measure.Balance -> 11.0, Measure.Db -> 30.0),
      probe(0, ProbeOutcome.Failed("invalid token"), Measure.Feedback -> 12.0))
    val s = StepResult.of(0, StepLoad(0, 0, 0), probes, Nil, measures, 5.seconds, 30)
    assertEquals((s.failed, s.measures(Measure.Feedback).count, s.measures(Measure.Balance).count, s.measures(Measure.Db).count), (1, 2L, 1L, 1L))
  }

  test("processes: mean CPU over the samples that have it, mean and peak memory; lag mean and max") {
    val samples = List(
      Sample(0, List(ProcessLoad("handler", 7, None, 100L * 1048576)), Some(10)),
      Sample(0, List(ProcessLoad("handler", 7, Some(20.0), 120L * 1048576)), Some(30)),
      Sample(0, List(ProcessLoad("handler", 7, Some(40.0), 110L * 1048576)), None))
    val s = StepResult.of(0, StepLoad(0, 0, 0), Nil, samples, measures, 5.seconds, 30)
    assertEquals(s.processes, List(ProcessStats("handler", 7, 30.0, 110.0, 120.0)))
    assertEquals((s.lagMean, s.lagMax), (Some(20.0), Some(30L)))
    assertEquals(s.measures(Measure.Feedback).count, 0L)
  }

  test("JSON of a step: its number from 1, the load, the percentiles by measure") {
    val s = StepResult.of(1, StepLoad(200, 199.456, 2), List(probe(1, ProbeOutcome.Confirmed, Measure.Feedback -> 12.345)), Nil,
      List(Measure.Feedback), 5.seconds, 30)
    val c = s.json.hcursor
    assertEquals(c.get[Int]("step"), Right(2))
    assertEquals(c.downField("load").get[Double]("achieved"), Right(199.46))
    assertEqualsDouble(c.downField("latencyMs").downField("feedback").get[Double]("p99").toOption.get, 12.35, 0.02)
  }
}

package bankops.jobs.latency

import java.time.Instant
import java.util.UUID
import scala.concurrent.duration._

class SettlingSuite extends munit.FunSuite {
  private def window(ms: Double*): Vector[Double] = Vector.fill(Settling.Window / ms.size)(ms).flatten

  test("settled: two full windows whose p90 agree; not before two windows, not while the latency still falls") {
    assert(!Settling.settled(window(40, 50)), "one window")
    assert(Settling.settled(window(40, 50) ++ window(45, 55)))
    assert(!Settling.settled(window(400, 500) ++ window(40, 50)), "a JIT still compiling")
    assert(Settling.settled(window(400, 500) ++ window(40, 50) ++ window(42, 48)), "only the last two windows count")
    assert(Settling.settled(window(1, 2) ++ window(5, 6)), "a few ms apart is agreement, whatever the ratio")
  }

  test("a timed-out probe counts as the timeout: a window with more than a tenth timed out never agrees with a calm one") {
    val timedOut = ProbeResult(1, -1, UUID.randomUUID(), Instant.EPOCH, Map.empty, ProbeOutcome.TimedOut(List(Measure.Feedback)))
    assertEquals(Settling.feedbackMs(timedOut, 5.seconds), Some(5000.0))
    val lost = Vector.fill(Settling.Window - 3)(40.0) ++ Vector(5000.0, 5000.0, 5000.0)
    assert(!Settling.settled(window(40, 50) ++ lost))
  }

  test("the demo's line: warm or cold by what was measured, how long it took, the floor beside the handler") {
    def step(i: Int, load: Int, p99: Double, warm: Boolean = false) = {
      val probes = (1 to 20).toList.map(n =>
        ProbeResult(n, if (warm) -1 else i, UUID.randomUUID(), Instant.EPOCH, Map(Measure.Feedback -> p99 * n / 20), ProbeOutcome.Confirmed))
      StepResult.of(if (warm) -1 else i, StepLoad(load, load.toDouble, 0), probes, Nil, List(Measure.Feedback), 5.seconds, 10)
    }
    val warmUp = Some(step(0, 0, 30, warm = true).copy(seconds = 6.24))
    val floor = LatencyOutcome(List(step(0, 0, 20), step(1, 500, 200)), Vector.empty, None, interrupted = false)
    val run = LatencyOutcome(List(step(0, 0, 40), step(1, 500, 500)), Vector.empty, None, interrupted = false, warmUp = warmUp,
      floor = Some(floor), settled = Some(true))
    assertEquals(LatencyBrief.line(run),
      "latency (warm: settled after 6.2 s of probes, 20 probes a step): feedback p99 40 ms at 0/s, 500 ms at 500/s of extra load; " +
        "Kafka's exactly-once floor p99 20 ms, 200 ms (the handler at 2.0x, 2.5x)")
    assert(LatencyBrief.line(run.copy(settled = Some(false))).startsWith("latency (cold: not settled within 6.2 s of probes, "))
  }
}

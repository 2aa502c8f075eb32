package bankops.jobs.latency

import io.circe.Json

import java.time.Instant
import java.util.UUID

/** How a probe ended: its deposit confirmed, refused by the handler, or not fully seen within the timeout. */
private[latency] sealed abstract class ProbeOutcome(val name: String)
private[latency] object ProbeOutcome {
  case object Confirmed extends ProbeOutcome("confirmed")
  final case class Failed(reason: String) extends ProbeOutcome("failed")
  final case class TimedOut(missing: List[Measure]) extends ProbeOutcome("timeout")
}

/** One probe: the deposit `id` sent at `sentAt` during step `step` (from 0), and the milliseconds each measure took. */
private[latency] final case class ProbeResult(seq: Int, step: Int, id: UUID, sentAt: Instant, latencies: Map[Measure, Double],
                                              outcome: ProbeOutcome) {
  def timedOut: Boolean = outcome.isInstanceOf[ProbeOutcome.TimedOut]

  def json: Json = Json.fromFields(
    List("type" -> Json.fromString("probe"), "probe" -> Json.fromInt(seq), "step" -> Json.fromInt(step + 1), "id" -> Json.fromString(id.toString),
      "sentAt" -> Json.fromString(sentAt.toString), "outcome" -> Json.fromString(outcome.name)) ++
      Measure.all.flatMap(m => latencies.get(m).map(ms => s"${m.name}Ms" -> Json.fromDoubleOrNull(ProbeResult.round(ms)))) ++
      (outcome match {
        case ProbeOutcome.Failed(reason) => List("reason" -> Json.fromString(reason))
        case ProbeOutcome.TimedOut(missing) => List("missing" -> Json.fromValues(missing.map(m => Json.fromString(m.name))))
        case ProbeOutcome.Confirmed => Nil
      }))

  /** One line for a person watching: `probe 12 (step 2): feedback 8.1 ms, balance 9.0 ms, db 21.4 ms`. */
  def line: String = {
    val times = Measure.all.flatMap(m => latencies.get(m).map(ms => f"${m.name} $ms%.1f ms")).mkString(", ")
    val end = outcome match {
      case ProbeOutcome.Failed(reason) => s" - FAILED: $reason"
      case ProbeOutcome.TimedOut(missing) => s" - TIMEOUT waiting for ${missing.map(_.name).mkString(", ")}"
      case ProbeOutcome.Confirmed => ""
    }
    s"probe $seq (${if (step < 0) "warm-up" else s"step ${step + 1}"}): ${if (times.isEmpty) "nothing seen" else times}$end"
  }
}

private[latency] object ProbeResult {
  def round(ms: Double): Double = math.round(ms * 100) / 100.0
}

package bankops.jobs.latency

import scala.concurrent.duration.FiniteDuration

/** When warm-up probes have settled: the feedback p90 of the last two windows of [[Window]] probes agree, within a
  * quarter of the larger or 5 ms. A JIT still compiling, or brokers still electing and loading, moves it by more.
  */
private[latency] object Settling {
  val Window = 20

  def settled(feedbackMs: Vector[Double]): Boolean =
    feedbackMs.size >= 2 * Window && {
      val (a, b) = feedbackMs.takeRight(2 * Window).splitAt(Window)
      val (pa, pb) = (p90(a), p90(b))
      math.abs(pa - pb) <= math.max(0.25 * math.max(pa, pb), 5.0)
    }

  /** A probe's feedback time; one that timed out counts as the timeout, so a window with more than a tenth timed out
    * never agrees with a calm one.
    */
  def feedbackMs(p: ProbeResult, timeout: FiniteDuration): Option[Double] =
    p.latencies.get(Measure.Feedback).orElse(Option.when(p.timedOut)(timeout.toNanos / 1e6))

  private def p90(ms: Vector[Double]): Double = {
    val sorted = ms.sorted
    sorted(math.min(sorted.size - 1, math.ceil(0.9 * sorted.size).toInt - 1))
  }
}

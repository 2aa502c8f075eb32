package bankops.jobs.latency

import cats.syntax.all._

/** A run in one line, as `bankops demo` says it: whether it was measured warm (its warm-up settled, and how long that
  * took) or cold, the feedback p99 of each step, and Kafka's own exactly-once floor beside it when measured.
  */
object LatencyBrief {
  def line(o: LatencyOutcome): String = {
    val warmUp = o.warmUp.fold("no warm-up")(w => f"${w.seconds}%.1f s")
    val state = o.settled match {
      case Some(true) => s"warm: settled after $warmUp of probes"
      case Some(false) => s"cold: not settled within $warmUp of probes"
      case None => s"after $warmUp of probes"
    }
    def p99(s: StepResult) = s.measures.get(Measure.Feedback).map(_.p99)
    val p99s = o.steps.map(s => p99(s).fold("none")(ms => f"$ms%.0f ms") + s" at ${s.load.asked}/s").mkString(", ")
    val floor = o.floor.map(_.steps).filter(_.nonEmpty).fold("") { f =>
      val ratios = o.steps.zip(f).map { case (h, k) => (p99(h), p99(k).filter(_ > 0)).mapN(_ / _).fold("?")(r => f"$r%.1fx") }
      s"; Kafka's exactly-once floor p99 ${f.map(p99(_).fold("none")(ms => f"$ms%.0f ms")).mkString(", ")} (the handler at ${ratios.mkString(", ")})"
    }
    val late = o.probes.count(_.timedOut)
    s"latency ($state, ${o.steps.map(_.probes).minOption.getOrElse(0)} probes a step): feedback p99 $p99s of extra load$floor" +
      (if (late > 0) s"; $late of ${o.probes.size} probes timed out" else "")
  }
}

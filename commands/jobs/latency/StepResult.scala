package bankops.jobs.latency

import io.circe.Json
import org.HdrHistogram.Histogram

import scala.concurrent.duration.FiniteDuration

/** Percentiles of one measure over a step's probes, in milliseconds, from an HdrHistogram of microseconds (3 significant
  * digits). A probe that timed out before the measure was seen counts as the timeout (the least it took), so a step with
  * timeouts shows them in its upper percentiles.
  */
private[latency] final case class MeasureStats(samplesMs: Vector[Double]) {
  private lazy val histogram = {
    val h = new Histogram(3600L * 1000 * 1000, 3)
    samplesMs.foreach(ms => h.recordValue(math.round(ms * 1000) max 0L min h.getHighestTrackableValue))
    h
  }
  def count: Long = samplesMs.size.toLong
  /** The value below which `p` percent of the samples lie (`p` 100: the maximum); 0 without samples. */
  def percentileMs(p: Double): Double =
    if (samplesMs.isEmpty) 0.0 else if (p >= 100) histogram.getMaxValue / 1000.0 else histogram.getValueAtPercentile(p) / 1000.0
  def p50: Double = percentileMs(50)
  def p90: Double = percentileMs(90)
  def p99: Double = percentileMs(99)
  def p999: Double = percentileMs(99.9)
  def max: Double = percentileMs(100)

  def json: Json = Json.obj("count" -> Json.fromLong(count), "p50" -> d(p50), "p90" -> d(p90), "p99" -> d(p99), "p99.9" -> d(p999), "max" -> d(max))
  private def d(x: Double) = Json.fromDoubleOrNull(ProbeResult.round(x))
}

/** The load a step asked for and what the generator achieved (records acknowledged per second, send errors). */
private[latency] final case class StepLoad(asked: Int, achieved: Double, errors: Long)

/** A watched process over a step: mean CPU (percent of a core), mean and peak resident memory. */
private[latency] final case class ProcessStats(label: String, pid: Long, cpuPercent: Double, rssMiB: Double, rssMaxMiB: Double)

/** One step of the run, aggregated: its probes by outcome, each measure's percentiles, the watched processes and lag. */
private[latency] final case class StepResult(index: Int, load: StepLoad, probes: Int, timeouts: Int, failed: Int,
                                             measures: Map[Measure, MeasureStats],
                                             processes: List[ProcessStats], lagMean: Option[Double], lagMax: Option[Long], seconds: Double) {
  /** The probes before the first step (index -1), reported apart. */
  def warmUp: Boolean = index < 0

  def json: Json = Json.obj(
    "type" -> Json.fromString(if (warmUp) "warm-up" else "step"),
    "step" -> Json.fromInt(index + 1),
    "load" -> Json.obj("asked" -> Json.fromInt(load.asked), "achieved" -> Json.fromDoubleOrNull(ProbeResult.round(load.achieved)),
      "errors" -> Json.fromLong(load.errors)),
    "seconds" -> Json.fromDoubleOrNull(ProbeResult.round(seconds)),
    "probes" -> Json.fromInt(probes), "timeouts" -> Json.fromInt(timeouts), "failed" -> Json.fromInt(failed),
    "latencyMs" -> Json.fromFields(Measure.all.flatMap(m => measures.get(m).map(m.name -> _.json))),
    "processes" -> Json.fromValues(processes.map(p =>
        Json.obj("name" -> Json.fromString(p.label), "pid" -> Json.fromLong(p.pid),
          "cpuPercent" -> Json.fromDoubleOrNull(ProbeResult.round(p.cpuPercent)), "rssMiB" -> Json.fromDoubleOrNull(ProbeResult.round(p.rssMiB)),
          "rssMaxMiB" -> Json.fromDoubleOrNull(ProbeResult.round(p.rssMaxMiB))))),
    "lag" ->
      Json.obj("mean" -> lagMean.fold(Json.Null)(x => Json.fromDoubleOrNull(ProbeResult.round(x))), "max" -> lagMax.fold(Json.Null)(Json.fromLong))
  )
}

private[latency] object StepResult {
  /** Aggregates step `index`'s probes and samples; `measures` are those the run takes. */
  def of(index: Int, load: StepLoad, probes: List[ProbeResult], samples: List[Sample], measures: List[Measure], timeout: FiniteDuration,
         seconds: Double): StepResult = {
    val timeoutMs = timeout.toNanos / 1e6
    val stats = measures.map { m =>
      // A probe refused by the handler has no balance change to wait for: it counts for feedback only.
      val seen = probes.filter(p => p.outcome == ProbeOutcome.Confirmed || p.timedOut || m == Measure.Feedback)
      m -> MeasureStats(seen.map(_.latencies.getOrElse(m, timeoutMs)).toVector)
    }.toMap
    val processes = samples.flatMap(_.processes).groupBy(p => (p.label, p.pid)).toList.sortBy(_._1).map { case ((label, pid), loads) =>
      val cpu = loads.flatMap(_.cpuPercent)
      val rss = loads.map(_.rssBytes / 1048576.0)
      ProcessStats(label, pid, if (cpu.isEmpty) 0.0 else cpu.sum / cpu.size, rss.sum / rss.size, rss.max)
    }
    val lags = samples.flatMap(_.lag)
    StepResult(index, load, probes.size, probes.count(_.timedOut), probes.count(_.outcome.isInstanceOf[ProbeOutcome.Failed]), stats, processes,
      if (lags.isEmpty) None else Some(lags.sum.toDouble / lags.size), lags.maxOption, seconds)
  }
}

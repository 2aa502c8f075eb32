package bankops.services.load

import io.circe.Json
import org.HdrHistogram.SynchronizedHistogram

import java.util.concurrent.atomic.AtomicLong

/** Counters of a load run, updated from acknowledgement callbacks. */
final class LoadStats(val startedNanos: Long) {
  val records = new AtomicLong()
  val bytes = new AtomicLong()
  val errors = new AtomicLong()
  /** Acknowledgement latencies in microseconds (up to an hour, 3 significant digits), recorded from the producer's thread. */
  val latency = new SynchronizedHistogram(3600L * 1000 * 1000, 3)

  def snapshot(nowNanos: Long, targetRate: Int): LoadSummary = {
    val secs = ((nowNanos - startedNanos) / 1e9) max 1e-9
    def ms(micros: Long) = micros / 1000.0
    val h = latency.copy()
    def p(q: Double) = ms(h.getValueAtPercentile(q))
    LoadSummary(records.get, records.get / secs, bytes.get / secs / (1024 * 1024), if (h.getTotalCount == 0) 0.0 else h.getMean / 1000.0,
      p(50), p(95), p(99), p(99.9), ms(h.getMaxValue), errors.get, targetRate, secs)
  }
}

/** The figures kafka-producer-perf-test prints, plus errors (the first of them named) and the rate asked for. */
final case class LoadSummary(records: Long, recordsPerSecond: Double, mbPerSecond: Double, avgMs: Double, p50: Double, p95: Double,
                             p99: Double, p999: Double, maxMs: Double, errors: Long, targetRate: Int, seconds: Double,
                             firstError: Option[String] = None) {
  def line: String = {
    val target = if (targetRate > 0) f" (target $targetRate, ${recordsPerSecond / targetRate * 100}%.1f%%)" else ""
    f"$records%d records, $recordsPerSecond%.1f records/s$target, $mbPerSecond%.2f MB/s, latency ms avg $avgMs%.2f p50 $p50%.2f " +
      f"p95 $p95%.2f p99 $p99%.2f p99.9 $p999%.2f max $maxMs%.2f, $errors%d errors"
  }

  def json: Json = Json.obj(
    "records" -> Json.fromLong(records),
    "recordsPerSecond" -> Json.fromDoubleOrNull(round(recordsPerSecond)),
    "mbPerSecond" -> Json.fromDoubleOrNull(round(mbPerSecond)),
    "latencyMs" -> Json.obj("avg" -> d(avgMs), "p50" -> d(p50), "p95" -> d(p95), "p99" -> d(p99), "p99.9" -> d(p999), "max" -> d(maxMs)),
    "errors" -> Json.fromLong(errors),
    "firstError" -> firstError.fold(Json.Null)(Json.fromString),
    "targetRate" -> Json.fromInt(targetRate),
    "seconds" -> d(seconds)
  )

  private def round(x: Double) = math.round(x * 1000) / 1000.0
  private def d(x: Double) = Json.fromDoubleOrNull(round(x))
}

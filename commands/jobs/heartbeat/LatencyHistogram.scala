package bankops.jobs.heartbeat

/** Latencies in microseconds in log-linear buckets (64 per power of two, under 1.6% error),
  * so percentiles over millions of acknowledgements take a few kilobytes.
  */
final class LatencyHistogram {
  private val sub = 64
  private val counts = new Array[Long](64 * sub)
  private var n = 0L
  private var sum = 0L
  private var maxSeen = 0L

  private def index(v: Long): Int = {
    val x = v max 1L
    val exp = 63 - java.lang.Long.numberOfLeadingZeros(x)
    if (exp < 6) x.toInt else exp * sub + ((x >>> (exp - 6)) & (sub - 1)).toInt
  }

  private def value(i: Int): Long =
    if (i < sub && i < 64) i.toLong else { val exp = i / sub; val frac = i % sub; ((sub + frac).toLong << (exp - 6)) }

  /** Called from one thread (the producer's network thread); readers may see a sample or two in flight. */
  def record(micros: Long): Unit = {
    counts(index(micros)) += 1; n += 1; sum += micros; if (micros > maxSeen) maxSeen = micros
  }

  def count: Long = synchronized(n)
  def meanMicros: Double = synchronized(if (n == 0) 0.0 else sum.toDouble / n)
  def maxMicros: Long = synchronized(maxSeen)

  /** The smallest bucket value at or above which `p` percent of the samples lie below. */
  def percentileMicros(p: Double): Long = synchronized {
    if (n == 0) 0L
    else {
      val target = math.ceil(n * p / 100.0).toLong max 1L
      var seen = 0L
      var i = 0
      while (i < counts.length && seen + counts(i) < target) { seen += counts(i); i += 1 }
      value(i) min maxSeen
    }
  }
}

package bankops.services.records

import java.time.Instant

/** An instant written as `Instant.toString` writes it (ISO-8601, UTC, the fraction only when there is one), without its
  * formatter per record: the date and time of one second are formatted once and reused, since a chunk's records mostly
  * share their second. The cache is one immutable pair: threads that race only format it again.
  */
object IsoTime {
  private final class Second(val epochSecond: Long, val prefix: String)
  @volatile private var last = new Second(Long.MinValue, "")

  def append(t: Instant, sb: java.lang.StringBuilder): Unit = {
    val nanos = t.getNano
    if (nanos % 1000000 != 0) sb.append(t.toString) // finer than milliseconds: rare, and Instant knows its own format
    else {
      val cached = last
      val second =
        if (cached.epochSecond == t.getEpochSecond) cached
        else {
          val whole = Instant.ofEpochSecond(t.getEpochSecond).toString
          val fresh = new Second(t.getEpochSecond, whole.substring(0, whole.length - 1))
          last = fresh
          fresh
        }
      sb.append(second.prefix)
      val millis = nanos / 1000000
      if (millis != 0) {
        sb.append('.')
        if (millis < 100) sb.append('0')
        if (millis < 10) sb.append('0')
        sb.append(millis)
      }
      sb.append('Z')
    }
  }
}

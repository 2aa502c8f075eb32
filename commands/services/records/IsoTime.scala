package bankops.services.records

import java.time.Instant

/** An instant written as `Instant.toString` writes it (ISO-8601, UTC, the fraction only when there is one), and read as
  * `Instant.parse` reads it, without a formatter per record: the date and time of one second are formatted (or parsed)
  * once and reused, since a chunk's records mostly share their second. Each cache holds the last [[Slots]] seconds by
  * the second's low bits, so that the two threads rendering chunks of partitions a second apart do not take turns
  * formatting each other's second. A slot is one immutable pair (final fields): threads that race on it only format or
  * parse it again.
  */
object IsoTime {
  private final class Second(val epochSecond: Long, val prefix: String)
  private final val Slots = 64
  private val written = Array.fill(Slots)(new Second(Long.MinValue, ""))
  private val read = Array.fill(Slots)(new Second(Long.MinValue, ""))
  private def slot(epochSecond: Long): Int = (epochSecond & (Slots - 1)).toInt

  /** The read cache's slot of text that may name a second, before it is parsed: by its minutes and seconds digits (any
    * characters there give some slot; the text is compared whole before the slot's second is used).
    */
  private def readSlot(text: String): Int = {
    def digit(i: Int) = text.charAt(i) - '0'
    (((digit(14) * 10 + digit(15)) * 60 + digit(17) * 10 + digit(18)) & (Slots - 1))
  }

  /** Where the date and time end in `yyyy-MM-ddTHH:mm:ss`, the form `Instant.toString` writes for years 0 to 9999. */
  private final val SecondEnd = 19

  /** Epoch milliseconds of `text` as `Instant.parse(text).toEpochMilli` gives them, and its exception for text it
    * refuses. Text of a second read before (the same 19 characters, then a fraction of 1 to 9 digits or none, then `Z`)
    * is read here; any other goes through `Instant.parse`.
    */
  def parseMillis(text: String): Long = {
    val cached = if (text.length > SecondEnd) read(readSlot(text)) else null
    val nanos = if (cached != null && text.startsWith(cached.prefix) && cached.prefix.length == SecondEnd) fraction(text) else -1
    if (nanos >= 0) Instant.ofEpochSecond(cached.epochSecond, nanos.toLong).toEpochMilli
    else {
      val t = Instant.parse(text)
      // Kept only when the text names its second as Instant.toString does: `24:00:00` (the next day) and a leap second
      // (`:60`) are read, but a fraction after them is refused.
      if (text.length > SecondEnd && fraction(text) >= 0) {
        val canonical = Instant.ofEpochSecond(t.getEpochSecond).toString
        if (canonical.length == SecondEnd + 1 && text.startsWith(canonical.substring(0, SecondEnd)))
          read(readSlot(canonical)) = new Second(t.getEpochSecond, canonical.substring(0, SecondEnd))
      }
      t.toEpochMilli
    }
  }

  /** The nanoseconds of what follows the second, when it is `Z` or `.` with 1 to 9 digits and `Z`; -1 otherwise. */
  private def fraction(text: String): Int = {
    val n = text.length
    if (text.charAt(n - 1) != 'Z') -1
    else if (n == SecondEnd + 1) 0
    else if (text.charAt(SecondEnd) != '.' || n - SecondEnd - 2 < 1 || n - SecondEnd - 2 > 9) -1
    else {
      var nanos = 0
      var i = SecondEnd + 1
      while (i < n - 1 && nanos >= 0) {
        val d = text.charAt(i) - '0'
        nanos = if (d >= 0 && d <= 9) nanos * 10 + d else -1
        i += 1
      }
      if (nanos < 0) -1 else { var scale = n - SecondEnd - 2; while (scale < 9) { nanos *= 10; scale += 1 }; nanos }
    }
  }

  def append(t: Instant, sb: java.lang.StringBuilder): Unit = {
    val nanos = t.getNano
    if (nanos % 1000000 != 0) sb.append(t.toString) // finer than milliseconds: rare, and Instant knows its own format
    else {
      val at = slot(t.getEpochSecond)
      val cached = written(at)
      val second =
        if (cached.epochSecond == t.getEpochSecond) cached
        else {
          val whole = Instant.ofEpochSecond(t.getEpochSecond).toString
          val fresh = new Second(t.getEpochSecond, whole.substring(0, whole.length - 1))
          written(at) = fresh
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

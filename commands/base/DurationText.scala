package bankops.base

import scala.concurrent.duration._

/** Durations as operators write them, the one parser for flags (`--duration 30s`, `--from ago:1h30m`) and
  * topic configs (`retention.ms: 15m`): a number and a unit (ms, s, m, h, d; any case), repeated, spaces allowed.
  */
object DurationText {
  private val Part = """(\d+)\s*(ms|s|m|h|d)""".r
  private val millisPer = Map("ms" -> 1L, "s" -> 1000L, "m" -> 60000L, "h" -> 3600000L, "d" -> 86400000L)

  def parse(s: String): Either[String, FiniteDuration] = {
    val text = s.trim.toLowerCase
    val parts = Part.findAllMatchIn(text).toList
    if (text.isEmpty || parts.map(_.matched).mkString != text.replaceAll("(?<=[a-z])\\s+(?=\\d)", ""))
      Left(s"'$s' is not a duration (e.g. 90s, 15m, 1h30m, 2d)")
    else
      try Right(parts.foldLeft(0L)((sum, p) => Math.addExact(sum, Math.multiplyExact(p.group(1).toLong, millisPer(p.group(2))))).millis)
      catch { case _: ArithmeticException | _: NumberFormatException | _: IllegalArgumentException => Left(s"'$s' is too large") }
  }
}

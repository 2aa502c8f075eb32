package bankops.services.kafka

import java.time.Instant
import scala.util.Try

/** The parsing StartAt and StopAt share, and the range a partition is read over. */
object Position {
  private[kafka] def offset(s: String): Either[String, Long] =
    s.toLongOption.filter(_ >= 0).toRight(s"'$s' is not an offset (a whole number, 0 or more)")

  private[kafka] def instant(s: String): Either[String, Instant] =
    Try(Instant.parse(s)).orElse(Try(java.time.OffsetDateTime.parse(s).toInstant))
      .orElse(Try(java.time.LocalDate.parse(s).atStartOfDay(java.time.ZoneOffset.UTC).toInstant))
      .toEither.left.map(_ => s"'$s' is not an ISO-8601 time (e.g. 2026-11-21T09:30:00Z)").flatMap(held(_, s"'$s'"))

  /** A time Kafka can be asked for: milliseconds since 1970 in a long. An earlier one is negative, which ListOffsets
    * reads as "latest" or "earliest" (or refuses), and one past the long's range does not convert at all.
    */
  private[kafka] def held(at: Instant, what: String): Either[String, Instant] =
    Try(at.toEpochMilli).toOption.filter(_ >= 0).map(_ => at)
      .toRight(s"$what is outside the times Kafka holds (1970-01-01T00:00:00Z to ${Instant.ofEpochMilli(Long.MaxValue)})")

  /** Pure: the range of one partition, from its log bounds and the offsets the broker found for the requested times
    * (`startTime`/`stopTime`: None when no record is that late). Offsets outside the log are clamped to it.
    */
  def range(start: StartAt, stop: StopAt, beginning: Long, end: Long, startTime: Option[Long], stopTime: Option[Long]): PartitionRange = {
    def clamp(o: Long) = o max beginning min end
    val from = start match {
      case StartAt.Beginning => beginning
      case StartAt.End => end
      case StartAt.Offset(n) => clamp(n)
      case StartAt.Time(_) => startTime.map(clamp).getOrElse(end)
      case StartAt.Offsets(_) => beginning // resolved per partition by the reader
    }
    val until = stop match {
      case StopAt.End => Some(end)
      case StopAt.Offset(n) => Some(clamp(n + 1))
      case StopAt.Time(_) => Some(stopTime.map(clamp).getOrElse(end))
      case StopAt.Never => None
      case StopAt.Ends(_) => Some(end) // resolved per partition by the reader
    }
    PartitionRange(from, until)
  }
}

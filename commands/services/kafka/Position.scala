package bankops.services.kafka

import com.monovore.decline.Argument

import java.time.Instant
import scala.util.Try

import bankops.base.{DurationText, Flags}

/** Where reading starts: `beginning`, `end`, `offset:N`, `timestamp:ISO-8601`, `ago:DURATION`. */
sealed trait StartAt
object StartAt {
  case object Beginning extends StartAt
  case object End extends StartAt
  final case class Offset(n: Long) extends StartAt
  final case class Time(at: Instant) extends StartAt
  /** Per partition, for resuming where an earlier read ended (not a command-line form). */
  final case class Offsets(byPartition: Map[org.apache.kafka.common.TopicPartition, Long]) extends StartAt

  /** `ago:15m` is resolved against `now` when parsed, so every partition uses the same instant. */
  def parse(s: String, now: Instant): Either[String, StartAt] = s match {
    case "beginning" => Right(Beginning)
    case "end" => Right(End)
    case o if o.startsWith("offset:") => Position.offset(o.drop(7)).map(Offset(_))
    case t if t.startsWith("timestamp:") => Position.instant(t.drop(10)).map(Time(_))
    case a if a.startsWith("ago:") => DurationText.parse(a.drop(4)).map(d => Time(now.minusMillis(d.toMillis)))
    case other => Left(s"'$other' is not a start position (beginning, end, offset:N, timestamp:ISO-8601, ago:DURATION)")
  }

  /** `ago:` against the moment the flag is read. */
  implicit val argument: Argument[StartAt] = Flags.argument("POSITION")(parse(_, Instant.now()))
}

/** Where reading stops (inclusive for offsets): `end` (the end when the run starts), `offset:N`, `timestamp:ISO-8601`. */
sealed trait StopAt
object StopAt {
  case object End extends StopAt
  final case class Offset(n: Long) extends StopAt
  final case class Time(at: Instant) extends StopAt
  /** `--follow`: until interrupted. */
  case object Never extends StopAt

  def parse(s: String): Either[String, StopAt] = s match {
    case "end" => Right(End)
    case o if o.startsWith("offset:") => Position.offset(o.drop(7)).map(Offset(_))
    case t if t.startsWith("timestamp:") => Position.instant(t.drop(10)).map(Time(_))
    case other => Left(s"'$other' is not a stop position (end, offset:N, timestamp:ISO-8601)")
  }

  implicit val argument: Argument[StopAt] = Flags.argument("POSITION")(parse)
}

/** The offsets one partition is read over: from `from`, up to but not including `until` (None: no end). */
final case class PartitionRange(from: Long, until: Option[Long]) {
  def isEmpty: Boolean = until.exists(_ <= from)
  def size: Option[Long] = until.map(u => (u - from) max 0L)
}

object Position {
  private[kafka] def offset(s: String): Either[String, Long] =
    s.toLongOption.filter(_ >= 0).toRight(s"'$s' is not an offset (a whole number, 0 or more)")

  private[kafka] def instant(s: String): Either[String, Instant] =
    Try(Instant.parse(s)).orElse(Try(java.time.OffsetDateTime.parse(s).toInstant))
      .orElse(Try(java.time.LocalDate.parse(s).atStartOfDay(java.time.ZoneOffset.UTC).toInstant))
      .toEither.left.map(_ => s"'$s' is not an ISO-8601 time (e.g. 2026-11-21T09:30:00Z)")

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
    }
    PartitionRange(from, until)
  }
}

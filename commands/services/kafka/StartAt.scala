package bankops.services.kafka

import java.time.Instant

import bankops.base.DurationText

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
    case a if a.startsWith("ago:") => DurationText.parse(a.drop(4)).flatMap(d => Position.held(now.minusMillis(d.toMillis), s"'$a'")).map(Time(_))
    case other => Left(s"'$other' is not a start position (beginning, end, offset:N, timestamp:ISO-8601, ago:DURATION)")
  }
}

package bankops.services.kafka

import java.time.Instant

/** Where reading stops (inclusive for offsets): `end` (the end when the run starts), `offset:N`, `timestamp:ISO-8601`. */
sealed trait StopAt
object StopAt {
  case object End extends StopAt
  final case class Offset(n: Long) extends StopAt
  final case class Time(at: Instant) extends StopAt
  /** `--follow`: until interrupted. */
  case object Never extends StopAt
  /** Each partition's end as the caller fixed it (exclusive; a partition not in it stops at its end): one instant for
    * several reads, as a capture's topics take. Never parsed from a flag.
    */
  final case class Ends(offsets: Map[org.apache.kafka.common.TopicPartition, Long]) extends StopAt

  def parse(s: String): Either[String, StopAt] = s match {
    case "end" => Right(End)
    case o if o.startsWith("offset:") => Position.offset(o.drop(7)).map(Offset(_))
    case t if t.startsWith("timestamp:") => Position.instant(t.drop(10)).map(Time(_))
    case other => Left(s"'$other' is not a stop position (end, offset:N, timestamp:ISO-8601)")
  }
}

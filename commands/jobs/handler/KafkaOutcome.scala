package bankops.jobs.handler

import org.apache.kafka.clients.consumer.KafkaConsumer
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.errors.OffsetOutOfRangeException

import scala.jdk.CollectionConverters._

/** Where a batch's Kafka transaction left its mark: one of its own feedback records, acknowledged before the
  * database transaction is prepared and named in that prepared transaction's id.
  */
final case class Marker(partition: Int, offset: Long)

/** How a prepared batch's Kafka transaction ended, as far as can be known now. */
sealed trait Outcome
object Outcome {
  case object Committed extends Outcome
  case object Aborted extends Outcome
  /** Still open (a live handler mid-commit, or one that died until its transaction times out), or Kafka unreachable. */
  case object Open extends Outcome
  /** The marker's record is gone (retention): nothing can tell any more. */
  final case class Unknowable(reason: String) extends Outcome
}

/** Reads a marker the way every read_committed consumer reads the feedback topic: a committed transaction's record is
  * returned, an aborted one's is skipped (the position moves past it), and an open one holds the position before it.
  * So the answer depends on nothing but the transaction itself: neither on the group's committed offsets, which an
  * operator may move or delete, nor on which handler asks. An open transaction is never guessed at: it is Open.
  */
final class KafkaOutcome(consumer: KafkaConsumer[Array[Byte], Array[Byte]], topic: String) {
  def of(marker: Marker, within: java.time.Duration, stopping: () => Boolean = () => false): Outcome = {
    val tp = new TopicPartition(topic, marker.partition)
    consumer.assign(List(tp).asJava)
    consumer.seek(tp, marker.offset)
    val deadline = System.nanoTime() + within.toNanos
    try {
      var outcome: Outcome = Outcome.Open
      while (outcome == Outcome.Open && System.nanoTime() < deadline) {
        if (stopping()) throw new HandlerStopping
        val records = consumer.poll(java.time.Duration.ofMillis(50)).records(tp).asScala
        outcome =
          if (records.exists(_.offset == marker.offset)) Outcome.Committed
          else if (records.nonEmpty || consumer.position(tp) > marker.offset) Outcome.Aborted
          else Outcome.Open
      }
      outcome
    } catch {
      case _: OffsetOutOfRangeException =>
        Outcome.Unknowable(s"$topic-${marker.partition}@${marker.offset} is no longer in the log (retention deleted it)")
    } finally consumer.assign(java.util.Collections.emptyList())
  }
}

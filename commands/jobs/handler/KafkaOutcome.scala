package bankops.jobs.handler

import org.apache.kafka.clients.consumer.{ConsumerRecord, KafkaConsumer}
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.errors.OffsetOutOfRangeException

import java.nio.charset.StandardCharsets.UTF_8
import scala.jdk.CollectionConverters._

/** Where a batch's Kafka transaction left its mark: one of its own feedback records, acknowledged before the
  * database transaction is prepared and named in that prepared transaction's id. `batch`: the batch's own id, which
  * the marker record carries in its `bankops.batch` header, so the record at that offset is known to be the marker
  * (None in ids of an older handler, which named the offset only).
  */
final case class Marker(partition: Int, offset: Long, batch: Option[String] = None)

object Marker {
  /** The header on a batch's marker record naming the batch. */
  val Header = "bankops.batch"
}

/** How a prepared batch's Kafka transaction ended, as far as can be known now. */
sealed trait Outcome
object Outcome {
  case object Committed extends Outcome
  case object Aborted extends Outcome
  /** Still open (a live handler mid-commit, or one that died until its transaction times out), or Kafka unreachable. */
  case object Open extends Outcome
  /** The marker's record is gone (retention, compaction, a recreated topic) or its offset holds another record: nothing
    * can tell any more, and a person settles the batch.
    */
  final case class Unknowable(reason: String) extends Outcome
}

/** Reads a marker the way every read_committed consumer reads the feedback topic: a committed transaction's record is
  * returned, an aborted one's is skipped (the position moves past it), and an open one holds the position before it.
  * So the answer depends on nothing but the transaction itself: neither on the group's committed offsets, which an
  * operator may move or delete, nor on which handler asks. An open transaction is never guessed at: it is Open. The
  * record found must be the marker itself (its `bankops.batch` header), and one passed over must be there for a reader
  * of every record (`uncommitted`, read_uncommitted): an offset that holds another record, or none, is Unknowable,
  * never a verdict.
  */
private[handler] final class KafkaOutcome(consumer: KafkaConsumer[Array[Byte], Array[Byte]], topic: String,
                                          uncommitted: KafkaConsumer[Array[Byte], Array[Byte]]) {
  import KafkaOutcome.Read
  def of(marker: Marker, within: java.time.Duration, stopping: () => Boolean = () => false): Outcome = {
    val tp = new TopicPartition(topic, marker.partition)
    val deadline = System.nanoTime() + within.toNanos
    read(consumer, tp, marker, deadline, stopping) match {
      case Read.Found(r) if carries(r, marker) => Outcome.Committed
      case Read.Found(r) => another(marker, r)
      // Skipped by read_committed: aborted, if the marker is there for a reader of every record; not there at all, the
      // log no longer holds it (compacted, deleted, the topic recreated) and nothing can tell.
      case Read.Passed if marker.batch.isEmpty => Outcome.Aborted
      case Read.Passed =>
        read(uncommitted, tp, marker, System.nanoTime() + KafkaOutcome.UncommittedWait.toNanos, stopping) match {
          case Read.Found(r) if carries(r, marker) => Outcome.Aborted
          case Read.Found(r) => another(marker, r)
          case Read.Open => Outcome.Open
          case _ => Outcome.Unknowable(s"${at(marker)} holds no record (compacted, deleted, or the topic was recreated)")
        }
      case Read.Open => Outcome.Open
      case Read.Gone => Outcome.Unknowable(s"${at(marker)} is no longer in the log (retention deleted it)")
    }
  }

  private def at(m: Marker) = s"$topic-${m.partition}@${m.offset}"

  private def carries(r: ConsumerRecord[Array[Byte], Array[Byte]], m: Marker): Boolean =
    m.batch.forall(b => Option(r.headers.lastHeader(Marker.Header)).exists(h => new String(h.value, UTF_8) == b))

  private def another(m: Marker, r: ConsumerRecord[Array[Byte], Array[Byte]]): Outcome = {
    val named = Option(r.headers.lastHeader(Marker.Header)).fold("no batch header")(h => s"batch ${new String(h.value, UTF_8)}")
    Outcome.Unknowable(s"${at(m)} holds another record than this batch's marker ($named, not ${m.batch.getOrElse("")})")
  }

  /** The record at the marker's offset as `c` reads it: found, passed over, not reached yet, or gone. */
  private def read(c: KafkaConsumer[Array[Byte], Array[Byte]], tp: TopicPartition, marker: Marker, deadline: Long, stopping: () => Boolean)
      : Read = {
    c.assign(List(tp).asJava)
    c.seek(tp, marker.offset)
    try {
      var result: Read = Read.Open
      while (result == Read.Open && System.nanoTime() < deadline) {
        if (stopping()) throw new HandlerStopping
        val records = c.poll(java.time.Duration.ofMillis(50)).records(tp).asScala
        result = records.find(_.offset == marker.offset).map(Read.Found(_))
          .getOrElse(if (records.nonEmpty || c.position(tp) > marker.offset) Read.Passed else Read.Open)
      }
      result
    } catch {
      case _: OffsetOutOfRangeException => Read.Gone
    } finally c.assign(java.util.Collections.emptyList())
  }
}

private[handler] object KafkaOutcome {
  /** The record at a marker's offset as one consumer reads it: found, passed over, not reached yet, or gone. */
  private sealed trait Read
  private object Read {
    final case class Found(record: ConsumerRecord[Array[Byte], Array[Byte]]) extends Read
    case object Passed extends Read
    case object Open extends Read
    case object Gone extends Read
  }
  /** How long a reader of every record is given to reach a marker that read_committed passed over. */
  val UncommittedWait: java.time.Duration = java.time.Duration.ofSeconds(5)
}

package bankops.jobs.handler

import org.apache.kafka.clients.consumer.{ConsumerRecord, OffsetAndMetadata}
import org.apache.kafka.common.TopicPartition

/** A poll's records as one batch: the commands it applies, the records it cannot read (with why, for the dead-letter
  * topic), and the offsets its Kafka transaction commits.
  */
private[handler] final case class Batch(records: Vector[Batch.Raw], commands: Vector[Ledger.Command], poison: Vector[(Batch.Raw, String)],
                                        offsets: Map[TopicPartition, OffsetAndMetadata])

private[handler] object Batch {
  type Raw = ConsumerRecord[Array[Byte], Array[Byte]]

  /** `purged`: command ids applied before whose outcomes were purged ([[CommandsPurged]]): dead letters. */
  def apply(records: Vector[Raw], decoder: CommandDecoder, purged: java.util.UUID => Boolean = _ => false): Batch = {
    val decoded = records.map(r =>
      r -> decoder.decode(r.value).flatMap { c =>
        val id = c.fold(_.id, _.id)
        if (purged(id)) Left(CommandsPurged.reason(id)) else Right(c)
      })
    Batch(records,
      decoded.collect { case (_, Right(c)) => c },
      decoded.collect { case (r, Left(reason)) => r -> reason },
      records.groupBy(r => new TopicPartition(r.topic, r.partition)).map { case (tp, rs) => tp -> new OffsetAndMetadata(rs.map(_.offset).max + 1) })
  }
}

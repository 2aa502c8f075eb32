package bankops.services.kafka

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.admin.Admin
import org.apache.kafka.common.TopicPartition

import java.time.Instant
import scala.jdk.CollectionConverters._

/** A transaction open on a partition: its producer, the offset of its first record, when it last wrote. */
final case class OpenTransaction(partition: TopicPartition, producerId: Long, firstOffset: Long, lastWrite: Instant) {
  def same(o: OpenTransaction): Boolean = partition == o.partition && producerId == o.producerId && firstOffset == o.firstOffset
}

/** Transactions a read_committed reader cannot pass: it stops at the last stable offset, the first record of the oldest
  * open one, and says nothing of what lies beyond.
  */
object OpenTransactions {

  /** The transactions open on the partitions now (DescribeProducers). A broker that cannot say (an old one, or no
    * permission) gives none: this is a warning's source, never a reason to fail.
    */
  def of(admin: Admin, partitions: Iterable[TopicPartition]): IO[List[OpenTransaction]] =
    if (partitions.isEmpty) IO.pure(Nil)
    else
      KafkaClients.await(admin.describeProducers(partitions.toList.asJava).all()).map(_.asScala.toList.flatMap { case (tp, state) =>
        state.activeProducers().asScala.toList.flatMap(p =>
          Option.when(p.currentTransactionStartOffset().isPresent)(
            OpenTransaction(tp, p.producerId(), p.currentTransactionStartOffset().getAsLong, Instant.ofEpochMilli(p.lastTimestamp()))))
      }).handleError(_ => Nil)

  /** For each partition, how many offsets lie past the last stable one (records of open transactions, and any written
    * after the oldest one's first): the high watermark minus the last stable offset.
    */
  def unstable(admin: Admin, partitions: Iterable[TopicPartition]): IO[Map[TopicPartition, (Long, Long)]] =
    (EndOffsets.ends(admin, partitions), EndOffsets.highWatermarks(admin, partitions)).tupled.map { case (stable, high) =>
      stable.collect { case (tp, s) if high.getOrElse(tp, s) > s => tp -> (s, high(tp) - s) }
    }

  /** The line for a transaction open for a whole read that stopped at `stable`, `beyond` offsets short of the end. */
  def held(t: OpenTransaction, stable: Long, beyond: Long): String =
    s"${t.partition}: an open transaction (producer id ${t.producerId}, its first record at offset ${t.firstOffset}, last written " +
      s"${t.lastWrite}) held the read at the last stable offset $stable for the whole capture: the $beyond offset(s) after it are not " +
      "captured (read_committed shows a transaction's records only once it commits); capture again when it has ended (it is aborted " +
      "at its producer's transaction.timeout.ms), or end the window before it (--to)"
}

package bankops.services.kafka

import cats.effect.IO
import org.apache.kafka.clients.admin.{Admin, ListConsumerGroupOffsetsSpec, ListOffsetsOptions, OffsetSpec}
import org.apache.kafka.common.{IsolationLevel, TopicPartition}

import scala.jdk.CollectionConverters._

/** What a consumer group has committed, compared with the logs' ends. */
object ConsumerGroups {

  /** Committed offset and end offset per partition the group has committed on (read_committed ends: the last stable offset). */
  def positions(admin: Admin, group: String): IO[Map[TopicPartition, (Long, Long)]] =
    KafkaClients.await(admin.listConsumerGroupOffsets(Map(group -> new ListConsumerGroupOffsetsSpec()).asJava).partitionsToOffsetAndMetadata(group))
      .map(_.asScala.collect { case (tp, o) if o != null => tp -> o.offset }.toMap)
      .flatMap { committed =>
        if (committed.isEmpty) IO.pure(Map.empty)
        else KafkaClients.await(admin.listOffsets(committed.keys.map(_ -> OffsetSpec.latest()).toMap.asJava,
            new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all())
          .map(ends => committed.map { case (tp, c) => tp -> (c, ends.get(tp).offset) })
      }

  /** Records the group has yet to read, summed over its partitions; None when it has committed nothing. */
  def lag(admin: Admin, group: String): IO[Option[Long]] =
    positions(admin, group).map(p => if (p.isEmpty) None else Some(p.values.map { case (c, end) => (end - c) max 0L }.sum))
}

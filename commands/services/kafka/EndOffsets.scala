package bankops.services.kafka

import cats.effect.IO
import org.apache.kafka.clients.admin.{Admin, ListOffsetsOptions, OffsetSpec}
import org.apache.kafka.common.{IsolationLevel, TopicPartition}

import scala.jdk.CollectionConverters._

/** Where a topic's partitions end for read_committed readers (the last stable offsets), to read what comes after. */
object EndOffsets {
  def of(admin: Admin, topic: String): IO[Map[TopicPartition, Long]] =
    KafkaClients.await(admin.describeTopics(List(topic).asJava).allTopicNames()).flatMap { d =>
      val partitions = d.get(topic).partitions.asScala.map(p => new TopicPartition(topic, p.partition)).toList
      KafkaClients.await(admin.listOffsets(partitions.map(_ -> OffsetSpec.latest()).toMap.asJava, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all())
        .map(_.asScala.map { case (tp, r) => tp -> r.offset }.toMap)
    }
}

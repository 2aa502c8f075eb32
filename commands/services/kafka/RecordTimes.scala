package bankops.services.kafka

import cats.effect.IO
import org.apache.kafka.common.TopicPartition

import java.time.Duration
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.services.config.KafkaSettings

/** The timestamps of the records at given offsets, by a small fetch from each partition: how old the next record a
  * group will read is, so its lag reads in time as well as in records.
  */
object RecordTimes {

  /** Per partition, the timestamp of the first record at or after its offset; absent where none arrived within `timeout`. */
  def at(kafka: KafkaSettings, offsets: Map[TopicPartition, Long], timeout: FiniteDuration): IO[Map[TopicPartition, Long]] =
    if (offsets.isEmpty) IO.pure(Map.empty)
    else KafkaClients.javaConsumer(kafka, timeout, few = Some(1)).use { consumer =>
      IO.blocking {
        consumer.assign(offsets.keys.toList.asJava)
        offsets.foreach { case (tp, o) => consumer.seek(tp, o) }
        val found = scala.collection.mutable.Map.empty[TopicPartition, Long]
        val deadline = System.nanoTime + timeout.toNanos
        while (found.size < offsets.size && System.nanoTime < deadline) {
          consumer.poll(Duration.ofMillis(200)).asScala.foreach { r =>
            val tp = new TopicPartition(r.topic, r.partition)
            if (!found.contains(tp)) { found(tp) = r.timestamp; consumer.pause(List(tp).asJava) }
          }
        }
        found.toMap
      }
    }.adaptError(KafkaClients.denied(kafka, Doing.reading(offsets.keys.map(_.topic).toList)))
}

package bankops.jobs.latency

import cats.effect.{Deferred, IO, Resource}
import org.apache.kafka.clients.consumer.{ConsumerGroupMetadata, KafkaConsumer, OffsetAndMetadata}
import org.apache.kafka.clients.producer.{KafkaProducer, ProducerRecord}
import org.apache.kafka.common.TopicPartition

import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters._

import bankops.services.config.KafkaSettings
import bankops.services.kafka.{Denied, KafkaClients}

/** Kafka's exactly-once floor: a consume-transform-produce relay with no database and no rules, on the handler's own
  * client settings (its group consumer and transactional producer), that copies each poll's records from `in` to `out`
  * in one transaction with the consumed offsets, as the handler commits a batch. What the handler costs beyond it is
  * its own work per batch: PostgreSQL, the rules, the encoding.
  */
private[latency] object FloorRelay {
  type Bytes = Array[Byte]

  /** Running once acquired (every partition of `in` positioned at its end, so no probe sent afterwards is missed);
    * `failure` fails when the relay does. Release stops it between transactions: the one under way commits first,
    * since an open one would hold read_committed readers back until it timed out.
    */
  def resource(kafka: KafkaSettings, topics: FloorTopics, maxBatch: Int, timeout: FiniteDuration): Resource[IO, IO[Nothing]] =
    for {
      consumer <- KafkaClients.groupConsumer(kafka, topics.group, None, timeout, maxBatch)
      producer <- Resource.make(IO.blocking(KafkaClients.transactionalProducer(kafka, topics.group, timeout)))(p =>
        IO.blocking(p.close(java.time.Duration.ofSeconds(5))))
      _ <- Resource.eval(IO.blocking(start(consumer, producer, topics.in)).adaptError(Denied.tag(FloorTopics.relaying(topics))))
      failed <- Resource.eval(Deferred[IO, Throwable])
      stopping = new AtomicBoolean(false)
      _ <- Resource.make(IO.blocking(loop(consumer, producer, topics, stopping)).handleErrorWith(e =>
          failed.complete(Denied.tag(FloorTopics.relaying(topics)).applyOrElse(e, identity[Throwable])).void).start)(fiber =>
        IO(stopping.set(true)) >> fiber.join.void)
    } yield failed.get.flatMap(IO.raiseError[Nothing])

  /** Assigned, not subscribed: no group join delays the start, and the offsets still go to the group. */
  private def start(consumer: KafkaConsumer[Bytes, Bytes], producer: KafkaProducer[Bytes, Bytes], in: String): Unit = {
    producer.initTransactions()
    val partitions = consumer.partitionsFor(in).asScala.toList.map(p => new TopicPartition(in, p.partition))
    consumer.assign(partitions.asJava)
    consumer.seekToEnd(partitions.asJava)
    partitions.foreach(consumer.position) // seekToEnd alone is lazy
  }

  private def loop(consumer: KafkaConsumer[Bytes, Bytes], producer: KafkaProducer[Bytes, Bytes], topics: FloorTopics,
                   stopping: AtomicBoolean): Unit = {
    val group = new ConsumerGroupMetadata(topics.group)
    while (!stopping.get) {
      val records = consumer.poll(java.time.Duration.ofMillis(200))
      if (!records.isEmpty) {
        producer.beginTransaction()
        val offsets = new java.util.HashMap[TopicPartition, OffsetAndMetadata]()
        records.forEach { r =>
          producer.send(new ProducerRecord(topics.out, r.partition, r.key, r.value))
          offsets.put(new TopicPartition(r.topic, r.partition), new OffsetAndMetadata(r.offset + 1))
        }
        // The offsets' round trips while the records are in flight, as the handler overlaps them with its work.
        producer.sendOffsetsToTransaction(offsets, group)
        producer.commitTransaction()
      }
    }
  }
}

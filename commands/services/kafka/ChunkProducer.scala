package bankops.services.kafka

import cats.effect.{IO, Resource}
import fs2.Chunk
import fs2.kafka.ProducerSettings
import org.apache.kafka.clients.producer.{Callback, KafkaProducer, ProducerRecord, RecordMetadata}
import org.apache.kafka.common.serialization.ByteArraySerializer

import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.duration.FiniteDuration

import bankops.services.config.KafkaSettings

/** The Java producer, fed a chunk per call. fs2-kafka's producer hands each record to a blocking pool
  * on its own, which caps a load generator near 50k records/s here; this sends a whole chunk in one
  * blocking call and reports each record's acknowledgement (with its own latency) to `onAck`.
  * Settings come from [[KafkaClients.producerSettings]], the one place they are made.
  */
final class ChunkProducer(producer: KafkaProducer[Array[Byte], Array[Byte]]) {

  /** Sends the chunk; the outer effect returns once all are handed over, the inner once all are acknowledged
    * (it never fails: errors go to `onAck` with the latency since the chunk was handed over).
    */
  def send(records: Chunk[ProducerRecord[Array[Byte], Array[Byte]]])(onAck: (Long, RecordMetadata, Exception) => Unit): IO[IO[Unit]] =
    IO.blocking {
      val done = new CompletableFuture[Unit]()
      val left = new AtomicInteger(records.size)
      if (records.isEmpty) done.complete(())
      // One callback for the chunk: a record's latency counts from when its chunk was handed over, which the
      // send loop does within a millisecond or two, and it spares an allocation per record at full rate.
      val sent = System.nanoTime()
      val callback = new Callback {
        def onCompletion(m: RecordMetadata, e: Exception): Unit = {
          onAck(System.nanoTime() - sent, m, e)
          if (left.decrementAndGet() == 0) done.complete(())
        }
      }
      records.foreach(r => producer.send(r, callback))
      IO.fromCompletableFuture(IO.pure(done)).void
    }

  /** As [[send]], with a callback per record: `onAck(index in chunk, metadata, error)`, for callers that must
    * know which record landed where (replay's per-partition counts, verification and resume offsets).
    */
  def sendEach(records: Chunk[ProducerRecord[Array[Byte], Array[Byte]]])(onAck: (Int, RecordMetadata, Exception) => Unit): IO[IO[Unit]] =
    IO.blocking {
      val done = new CompletableFuture[Unit]()
      val left = new AtomicInteger(records.size)
      if (records.isEmpty) done.complete(())
      records.zipWithIndex.foreach { case (r, i) =>
        producer.send(r,
          new Callback {
            def onCompletion(m: RecordMetadata, e: Exception): Unit = {
              onAck(i, m, e)
              if (left.decrementAndGet() == 0) done.complete(())
            }
          })
      }
      IO.fromCompletableFuture(IO.pure(done)).void
    }

  def flush: IO[Unit] = IO.blocking(producer.flush())

  /** Fetches the topics' metadata now, so the first send does not stall a paced run. Interruptible: it may
    * run in the background, and Ctrl-C must not wait out max.block.ms for a slow target.
    */
  def warmUp(topics: List[String]): IO[Unit] = IO.interruptible(topics.foreach(producer.partitionsFor(_)))
}

object ChunkProducer {
  /** `tune` adjusts the settings for one use (a prober sends single records at once: no linger). */
  def resource(kafka: KafkaSettings, timeout: FiniteDuration,
               tune: ProducerSettings[IO, Array[Byte], Array[Byte]] => ProducerSettings[IO, Array[Byte], Array[Byte]] =
                 identity): Resource[IO, ChunkProducer] = {
    val props = KafkaClients.javaProperties(tune(KafkaClients.producerSettings(kafka, timeout)).properties)
    Resource.make(IO.blocking(new KafkaProducer[Array[Byte], Array[Byte]](props, new ByteArraySerializer, new ByteArraySerializer)))(p =>
      IO.blocking(p.close(java.time.Duration.ofSeconds(30)))).map(new ChunkProducer(_))
  }
}

package bankops.services.kafka

import cats.effect.{IO, Resource}
import fs2.Chunk
import fs2.kafka.ProducerSettings
import org.apache.kafka.clients.producer.{Callback, KafkaProducer, ProducerRecord, RecordMetadata}
import org.apache.kafka.common.serialization.ByteArraySerializer

import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong, AtomicReference}
import scala.concurrent.duration._

import bankops.base.Failure
import bankops.services.config.KafkaSettings

/** The Java producer, fed a chunk per call. fs2-kafka's producer hands each record to a blocking pool
  * on its own, which caps a load generator near 50k records/s here; this sends a whole chunk in one
  * blocking call and reports each record's acknowledgement (with its own latency) to `onAck`.
  * Settings come from [[KafkaClients.producerSettings]], the one place they are made.
  */
final class ChunkProducer(producer: KafkaProducer[Array[Byte], Array[Byte]], stallAfter: FiniteDuration) {
  // Records handed over and not yet answered, and when the last answer came (or records began to wait): the producer
  // retries some waits forever (an idempotent producer's id, with the controller quorum lost), so [[watched]] bounds them.
  private val waiting = new AtomicLong()
  private val lastAnswer = new AtomicLong(System.nanoTime())
  private val firstFailure = new AtomicReference[Exception]()

  private def handingOver(n: Int): Unit = if (waiting.getAndAdd(n.toLong) == 0) lastAnswer.set(System.nanoTime())

  private def answered(e: Exception): Unit = {
    lastAnswer.set(System.nanoTime()); waiting.decrementAndGet()
    if (e != null && !Denied.isRefusal(e)) { firstFailure.compareAndSet(null, e); () }
  }

  /** The first record Kafka did not take (the authorizer's refusals aside, which their callers name), for a run's line. */
  def firstError: Option[String] = Option(firstFailure.get).map(ChunkProducer.describe)

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
          answered(e)
          onAck(System.nanoTime() - sent, m, e)
          if (left.decrementAndGet() == 0) done.complete(())
        }
      }
      handingOver(records.size)
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
      handingOver(records.size)
      records.zipWithIndex.foreach { case (r, i) =>
        producer.send(r,
          new Callback {
            def onCompletion(m: RecordMetadata, e: Exception): Unit = {
              answered(e)
              onAck(i, m, e)
              if (left.decrementAndGet() == 0) done.complete(())
            }
          })
      }
      IO.fromCompletableFuture(IO.pure(done)).void
    }

  /** `run`, ended with exit 3 when records have waited `stallAfter` (the delivery timeout) without Kafka answering any:
    * a cluster that takes no writes is a clear line, not a wait without end. Within it, writes resume when it recovers.
    */
  def watched[A](run: IO[A]): IO[A] = {
    val stalled =
      (IO.sleep(1.second) >> IO {
        val n = waiting.get
        Option.when(n > 0 && (System.nanoTime() - lastAnswer.get).nanos > stallAfter)(n)
      }).iterateUntil(_.isDefined).flatMap(n => IO.raiseError[A](Failure.Unavailable(ChunkProducer.stallMessage(n.get, stallAfter, firstError))))
    IO.race(stalled, run).map(_.merge)
  }

  def flush: IO[Unit] = IO.blocking(producer.flush())

  /** Fetches the topics' metadata now, so the first send does not stall a paced run. Interruptible: it may
    * run in the background, and Ctrl-C must not wait out max.block.ms for a slow target.
    */
  def warmUp(topics: List[String]): IO[Unit] = IO.interruptible(topics.foreach(producer.partitionsFor(_)))
}

object ChunkProducer {
  /** `tune` adjusts the settings for one use (a prober sends single records at once: no linger). The delivery timeout
    * bounds how long records may wait unanswered ([[ChunkProducer.watched]]). After a failure, records still waiting
    * are abandoned at once rather than waited for.
    */
  def resource(kafka: KafkaSettings, timeout: FiniteDuration,
               tune: ProducerSettings[IO, Array[Byte], Array[Byte]] => ProducerSettings[IO, Array[Byte], Array[Byte]] =
                 identity): Resource[IO, ChunkProducer] = {
    val settings = tune(KafkaClients.producerSettings(kafka, timeout))
    val props = KafkaClients.javaProperties(settings.properties)
    val stallAfter = settings.properties.get("delivery.timeout.ms").flatMap(_.toLongOption).fold(timeout * 4)(_.millis)
    Resource.makeCase(IO.blocking(new KafkaProducer[Array[Byte], Array[Byte]](props, new ByteArraySerializer, new ByteArraySerializer))) {
      case (p, Resource.ExitCase.Errored(_)) => IO.blocking(p.close(java.time.Duration.ZERO))
      case (p, _) => IO.blocking(p.close(java.time.Duration.ofSeconds(30)))
    }.map(new ChunkProducer(_, stallAfter))
  }

  /** An error as a line: its kind and message, and for a record that expired what that means for the cluster. */
  def describe(e: Throwable): String = {
    val hint = e match {
      case _: org.apache.kafka.common.errors.TimeoutException =>
        " (not acknowledged within the delivery timeout, 4 × --timeout: is a partition's leader down, or its in-sync replicas below " +
          "min.insync.replicas? `bankops topics describe` shows them)"
      case _ => ""
    }
    s"${e.getClass.getSimpleName}: ${Option(e.getMessage).getOrElse("no message")}$hint"
  }

  def stallMessage(waiting: Long, stallAfter: FiniteDuration, firstError: Option[String]): String =
    s"Kafka answered none of the $waiting record(s) waiting for ${stallAfter.toSeconds} s (the delivery timeout, 4 × --timeout): " +
      "no broker takes writes for them (a partition without a leader or below min.insync.replicas, a cluster without its " +
      "controller quorum, or, just after a leader moved, a new leader refusing the producer's sequence: " +
      s"OutOfOrderSequenceException in that broker's log)${firstError.fold("")(e => s"; the first error: $e")}"
}

package bankops.jobs.latency

import cats.effect.{Deferred, IO, Resource}
import cats.syntax.all._
import fs2.Chunk
import org.apache.kafka.clients.producer.ProducerRecord

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.duration._

import bankops.services.config.KafkaSettings
import bankops.services.kafka.{ChunkProducer, Denied, Doing, ReadSpec, StartAt, StopAt, TopicReader}

/** Times the floor as [[Prober]] times the handler: a record sent to the relay's `in` (the bytes of a probe's deposit,
  * keyed by its id) until it is readable on `out` with read_committed, read as the probes' answers are read. Its time is
  * the step's `feedback` measure.
  */
private[latency] final class FloorProber private (producer: ChunkProducer, topics: FloorTopics, value: UUID => Array[Byte],
                                                  timeout: FiniteDuration, failed: Deferred[IO, Throwable]) {
  private val waiting = new ConcurrentHashMap[String, Deferred[IO, Long]]()

  def failure: IO[Nothing] = failed.get.flatMap(IO.raiseError)

  def probe(seq: Int, step: Int): IO[ProbeResult] =
    for {
      id <- IO(UUID.randomUUID())
      seen <- Deferred[IO, Long]
      _ <- IO(waiting.put(id.toString, seen))
      sentAt <- IO.realTimeInstant
      start <- IO(System.nanoTime())
      error = new AtomicReference[Throwable]()
      acked <- producer.sendEach(Chunk.singleton(new ProducerRecord(topics.in, id.toString.getBytes(UTF_8), value(id))))((_, _, e) =>
        if (e != null) error.set(e))
      arrived <- seen.get.map(Option(_)).timeoutTo(timeout, IO.none)
      _ <- IO(waiting.remove(id.toString)) >> acked
    } yield {
      val latency: Map[Measure, Double] = arrived.map(n => (Measure.Feedback: Measure) -> (n - start) / 1e6).toMap
      val outcome = Option(error.get) match {
        case Some(e) => ProbeOutcome.Failed(s"not sent: ${e.getMessage}")
        case None if latency.nonEmpty => ProbeOutcome.Confirmed
        case None => ProbeOutcome.TimedOut(List(Measure.Feedback))
      }
      ProbeResult(seq, step, id, sentAt, latency, outcome)
    }

  private def onChunk(chunk: Chunk[TopicReader.Raw]): IO[Unit] = IO(System.nanoTime()).flatMap { now =>
    chunk.traverse_(r => Option(r.key).flatMap(k => Option(waiting.remove(new String(k, UTF_8)))).traverse_(_.complete(now)))
  }
}

private[latency] object FloorProber {

  /** Reading `out` from its end once acquired; probes go out at once, not lingering for a batch. `clients`: the
    * clients' own timeouts (as the handler's prober has, so a slow cluster does not read as down); `timeout`: a probe's.
    */
  def resource(kafka: KafkaSettings, topics: FloorTopics, value: UUID => Array[Byte], timeout: FiniteDuration, clients: FiniteDuration)
      : Resource[IO, FloorProber] =
    for {
      producer <- ChunkProducer.resource(kafka, clients, _.withLinger(Duration.Zero))
      read <- TopicReader.open(kafka, ReadSpec(List(topics.out), None, StartAt.End, StopAt.Never), clients, few = Some(1000L))
      failed <- Resource.eval(Deferred[IO, Throwable])
      prober = new FloorProber(producer, topics, value, timeout, failed)
      _ <- read._2.chunks.evalMap(prober.onChunk).compile.drain.handleErrorWith(e =>
        failed.complete(Denied.tag(Doing.writing(List(topics.in)).andReading(List(topics.out))).applyOrElse(e, identity[Throwable])).void).background
    } yield prober
}

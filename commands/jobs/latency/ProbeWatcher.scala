package bankops.jobs.latency

import cats.effect.{Deferred, IO, Resource}
import cats.syntax.all._
import fs2.Chunk
import io.circe.Json

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap
import scala.concurrent.duration.FiniteDuration

import bankops.services.config.KafkaSettings
import bankops.services.kafka.{ReadSpec, StartAt, StopAt, TopicReader}
import bankops.services.kafka.TopicReader.Raw
import bankops.services.records.RecordDecoder

/** An answer seen on a topic: when it arrived (monotonic nanoseconds), its record type and value. */
private[latency] final case class Arrival(nanos: Long, record: String, value: Json)

/** Follows the feedback and balance topics from their ends and completes the waits of the probes in flight. Only records
  * keyed by a waiting command id (feedback) or by the probe account (balance changes) are decoded: under load the
  * topics carry thousands of other records a second.
  */
private[latency] final class ProbeWatcher private (feedbackTopic: String, balanceTopic: String, decoder: RecordDecoder,
                                                   failed: Deferred[IO, Throwable]) {
  private val feedback = new ConcurrentHashMap[String, Deferred[IO, Arrival]]()
  private val balance = new ConcurrentHashMap[String, Deferred[IO, Arrival]]()
  @volatile private var account: Array[Byte] = Array.emptyByteArray

  /** Balance changes of this account are the probes'. */
  def watchAccount(iban: String): IO[Unit] = IO { account = iban.getBytes(UTF_8) }

  /** Waits for command `id`'s feedback and, for a deposit, its BalanceChanged; registered before the command is sent. */
  def expect(id: UUID, balanceChange: Boolean): IO[(Deferred[IO, Arrival], Option[Deferred[IO, Arrival]])] =
    for {
      f <- Deferred[IO, Arrival]
      b <- if (balanceChange) Deferred[IO, Arrival].map(Some(_)) else IO.none
      _ <- IO { feedback.put(id.toString, f); b.foreach(balance.put(id.toString, _)) }
    } yield (f, b)

  /** Fails when following the topics failed (the broker or registry gone): the run stops rather than time out probes. */
  def failure: IO[Nothing] = failed.get.flatMap(IO.raiseError)

  def forget(id: UUID): IO[Unit] = IO { feedback.remove(id.toString); balance.remove(id.toString); () }

  private def onChunk(chunk: Chunk[Raw]): IO[Unit] = {
    val now = System.nanoTime()
    val mine = chunk.filter { r =>
      val key = Option(r.key).getOrElse(Array.emptyByteArray)
      if (r.topic == feedbackTopic) feedback.containsKey(new String(key, UTF_8))
      else r.topic == balanceTopic && java.util.Arrays.equals(key, account)
    }
    if (mine.isEmpty) IO.unit
    else decoder.decodeChunk(mine).flatMap(_.traverse_ { d =>
      val arrival = Arrival(now, d.envelope.record.getOrElse(""), d.envelope.value.getOrElse(Json.Null))
      val waiting =
        if (d.envelope.topic == feedbackTopic) d.envelope.keyText.flatMap(k => Option(feedback.remove(k)))
        else arrival.value.hcursor.get[String]("description").toOption.flatMap(ProbeWatcher.probeId).flatMap(id => Option(balance.remove(id)))
      waiting.traverse_(_.complete(arrival))
    })
  }
}

private[latency] object ProbeWatcher {
  private val Prefix = "bankops latency probe "

  /** The description of probe `id`'s deposit, carried into its BalanceChanged. */
  def description(id: UUID): String = Prefix + id

  def probeId(description: String): Option[String] = if (description.startsWith(Prefix)) Some(description.drop(Prefix.length)) else None

  /** Positioned at both topics' ends once acquired, so no answer to a command sent afterwards is missed. */
  def resource(kafka: KafkaSettings, feedbackTopic: String, balanceTopic: String, decoder: RecordDecoder, timeout: FiniteDuration)
      : Resource[IO, ProbeWatcher] =
    // Small fetches answered at once: the probes' answers are wanted the moment they land, not batched.
    TopicReader.open(kafka, ReadSpec(List(feedbackTopic, balanceTopic), None, StartAt.End, StopAt.Never), timeout, few = Some(1000L)).flatMap {
      case (_, records) =>
        Resource.eval(Deferred[IO, Throwable]).flatMap { failed =>
          val watcher = new ProbeWatcher(feedbackTopic, balanceTopic, decoder, failed)
          records.chunks.evalMap(watcher.onChunk).compile.drain.handleErrorWith(e => failed.complete(e).void).background.as(watcher)
        }
    }
}

package bankops.services.load

import cats.effect.{IO, Outcome, Resource}
import cats.syntax.all._
import fs2.{Chunk, Stream}
import org.apache.kafka.clients.producer.ProducerRecord

import java.nio.charset.StandardCharsets.UTF_8
import java.time.Instant
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}
import scala.concurrent.duration._
import scala.util.chaining._

import bankops.services.avro.WireFormat
import bankops.services.bank.{ConfirmAccountCreation, ConfirmMoneyTransfer, Heartbeat}
import bankops.services.config.ConnectionSettings
import bankops.services.kafka.{ChunkProducer, Denied, Doing, KafkaClients, ReadSpec, StartAt, StopAt, TopicReader}
import bankops.services.records.RecordDecoder
import bankops.services.registry.{RecordSchemaId, RegistryClient, SchemaResolver}

/** Heartbeats and bank commands at a set rate through one producer, for `heartbeat` and for the background load of
  * `latency`. Runs may follow one another at different rates: beats go on counting and learned accounts stay known.
  */
final class LoadGenerator private (make: (Long, Array[Byte]) => ProducerRecord[Array[Byte], Array[Byte]], producer: ChunkProducer,
                                   learner: IO[Nothing], refused: PartialFunction[Throwable, Throwable]) {
  private val made = new AtomicLong()

  /** Sends at `rate` records/s (0: as fast as the broker takes them) until `stop` completes or `count` were made, then
    * waits for the acknowledgements of what was sent; `report` runs every 5 s with the figures so far.
    */
  def run(rate: Int, count: Option[Long], stop: IO[Unit], report: LoadSummary => IO[Unit] = _ => IO.unit): IO[LoadSummary] =
    IO.monotonic.flatMap { start =>
      val stats = new LoadStats(start.toNanos)
      val first = made.get
      // Stopping ends the making of chunks at a chunk boundary, never inside a send: interrupting the stream (interruptWhen)
      // also cut short a send in progress, whose records then landed uncounted (a Ctrl-C summary 5 short of 660).
      // When it stopped (monotonic nanos; 0 while running): a paced run still makes what was due by then.
      val stoppedAt = new AtomicLong(0L)
      // When the last chunk was made: a paced run's rate is what it offered while sending, not diluted by the wait for
      // the last acknowledgements (a 4 s step at 100/s on three brokers read as 82/s).
      val madeUntil = new AtomicLong(0L)
      val sent = LoadGenerator.chunks(rate, count, (n, now) => make(first + n, now), start, () => stoppedAt.get)
        .onFinalize(IO.monotonic.flatMap(t => IO(madeUntil.set(t.toNanos)))).evalMap { chunk =>
          made.addAndGet(chunk.size.toLong)
          val bytes = chunk.foldLeft(0L)((n, r) => n + r.value.length + Option(r.key).fold(0)(_.length))
          val failed = new AtomicInteger()
          val refusal = new java.util.concurrent.atomic.AtomicReference[Exception]()
          // Callbacks run on the producer's one network thread: per record only the latency is recorded.
          producer.send(chunk)((nanos, _, error) =>
            if (error == null) stats.latency.recordValue((nanos / 1000) min stats.latency.getHighestTrackableValue)
            else { failed.incrementAndGet(); if (Denied.isRefusal(error)) refusal.compareAndSet(null, error) })
            .map(_.flatMap(_ =>
                IO {
                  stats.records.addAndGet(chunk.size.toLong - failed.get); stats.errors.addAndGet(failed.get.toLong)
                  if (failed.get == 0) stats.bytes.addAndGet(bytes)
                } >> Option(refusal.get).traverse_(IO.raiseError[Unit]))) // the authorizer's refusal ends the run: all would be refused
        }.parEvalMap(4096)(identity)
      val snapshot = IO.monotonic.map { now =>
        val until =
          if (rate > 0 && stoppedAt.get > 0) stoppedAt.get else if (rate > 0 && madeUntil.get > 0) madeUntil.get else now.toNanos
        stats.snapshot(until, rate).copy(firstError = producer.firstError)
      }
      val reports = Stream.awakeEvery[IO](5.seconds).evalMap(_ => snapshot.flatMap(report))
      producer.watched((stop >> IO.monotonic.flatMap(t => IO(stoppedAt.set(t.toNanos max 1L)))).background.surround(
          sent.concurrently(reports).concurrently(Stream.eval(learner)).compile
            .drain)).adaptError(refused) >> snapshot
    }
}

object LoadGenerator {

  /** Checks the topics, resolves the records' schema ids (registering them only when asked), opens the producer and, for
    * a learning command load, starts following the handler's feedback: at its end, so no answer to a creation is missed.
    * `to`: the records made for `spec`'s topics are sent to this topic instead, byte for byte (the load of
    * `latency --floor`'s relay, which must carry what the handler carries).
    */
  def resource(settings: ConnectionSettings, spec: LoadSpec, timeout: FiniteDuration, to: Option[String] = None): Resource[IO, LoadGenerator] = {
    val sent = to.fold(spec.topics)(List(_))
    for {
      _ <- Resource.eval(KafkaClients.partitionCounts(settings.kafka,
          (spec.topics ++ sent).distinct ++ (if (spec.learning) List(spec.bank.feedback) else Nil),
          timeout, Some(Doing.writing(sent).andReading(if (spec.learning) List(spec.bank.feedback) else Nil))))
      registry <- RegistryClient.resource(settings, timeout)
      ids <- Resource.eval((
          if (spec.beats) RecordSchemaId[Heartbeat](registry, spec.strategy, spec.bank.heartbeat, spec.register).map(Some(_)) else IO.none[Int],
          if (spec.commands) RecordSchemaId[ConfirmAccountCreation](registry, spec.strategy, spec.bank.commands, spec.register).map(Some(_))
          else IO.none[Int],
          if (spec.commands) RecordSchemaId[ConfirmMoneyTransfer](registry, spec.strategy, spec.bank.commands, spec.register).map(Some(_))
          else IO.none[Int]
        ).tupled)
      pool = new AccountPool
      learner <- if (!spec.learning) Resource.pure[IO, IO[Nothing]](IO.never)
      else TopicReader.open(settings.kafka, ReadSpec(List(spec.bank.feedback), None, StartAt.End, StopAt.Never), timeout)
        .flatMap { case (_, records) => FeedbackLearner(records, new RecordDecoder(new SchemaResolver(registry)), pool).compile.drain.background }
        .map(_.flatMap {
          case Outcome.Errored(e) => IO.raiseError(e)
          case _ => IO.never
        })
      producer <- ChunkProducer.resource(settings.kafka, timeout)
      _ <- Resource.eval(producer.warmUp(sent))
      made = records(spec, ids, pool)
    } yield new LoadGenerator(
      to.fold(made)(t => (n, now) => made(n, now).pipe(r => new ProducerRecord(t, r.key, r.value))), producer, learner,
      KafkaClients.denied(settings.kafka, Doing.writing(sent)))
  }

  /** Record n (from 0): a heartbeat, a command, or in mixed runs alternately one of each. */
  private def records(spec: LoadSpec, ids: (Option[Int], Option[Int], Option[Int]), pool: AccountPool)
      : (Long, Array[Byte]) => ProducerRecord[Array[Byte], Array[Byte]] = {
    val (beatId, cacId, cmtId) = ids
    val beats = writer(beatId, Heartbeat.writer)
    val creations = writer(cacId, WireFormat.Writer[ConfirmAccountCreation](_))
    val transfers = writer(cmtId, WireFormat.Writer[ConfirmMoneyTransfer](_))
    val nextCommand =
      if (spec.learning) new LearningGenerator(spec.seed, spec.failShare, pool).next _ else new CommandGenerator(spec.seed, spec.failShare).next _
    val mixed = spec.kind == LoadKind.Mixed
    (n: Long, now: Array[Byte]) =>
      if (spec.kind == LoadKind.Heartbeats || (mixed && n % 2 == 0))
        new ProducerRecord(spec.bank.heartbeat, now, beats(Heartbeat(spec.startBeat + (if (mixed) n / 2 else n))))
      else nextCommand() match {
        case Left(c) => new ProducerRecord(spec.bank.commands, c.id.toString.getBytes(UTF_8), creations(c))
        case Right(t) => new ProducerRecord(spec.bank.commands, t.id.toString.getBytes(UTF_8), transfers(t))
      }
  }

  private def writer[A](id: Option[Int], make: Int => WireFormat.Writer[A]): A => Array[Byte] = id.fold((_: A) => Array.emptyByteArray) { i =>
    val w = make(i)
    a => w(a).fold(e => throw new IllegalStateException(e.message), identity)
  }

  /** Chunks of records at `rate` per second (0: as fast as taken), `count` in all if given, until `stoppedAt` (monotonic
    * nanos) is set. Pacing follows the clock, not the tick count, so a late tick is made up and the rate holds over the
    * run; the tick after the stop makes what was due at the stop and ends, so a tick held up by a busy machine just before
    * the stop is not lost (a 3 s step at 100/s once offered 89/s). Chunks are made and sent in turn, not overlapped: with
    * the broker on the same 2 cores a second busy thread cost more than it hid (prefetching 4 chunks: ~420k records/s;
    * in turn: ~560k).
    */
  private def chunks(rate: Int, count: Option[Long], make: (Long, Array[Byte]) => ProducerRecord[Array[Byte], Array[Byte]],
                     start: FiniteDuration, stoppedAt: () => Long): Stream[IO, Chunk[ProducerRecord[Array[Byte], Array[Byte]]]] = {
    val limit = count.getOrElse(Long.MaxValue)
    def batch(from: Long, n: Long): Chunk[ProducerRecord[Array[Byte], Array[Byte]]] = {
      val k = (n min (limit - from)).toInt
      // Records of one chunk are made within the same moment: one key for the time produced.
      val now = Instant.now().toString.getBytes(UTF_8)
      Chunk.array(Array.tabulate[AnyRef](k)(i => make(from + i, now))).asInstanceOf[Chunk[ProducerRecord[Array[Byte], Array[Byte]]]]
    }
    if (rate == 0) Stream.iterate(0L)(_ + 4096).takeWhile(from => from < limit && stoppedAt() == 0L).map(from => batch(from, 4096))
    else Stream.fixedRate[IO](Pacing.tick(rate)).evalMapAccumulate(0L) { (sent, _) =>
      IO.monotonic.map { now =>
        val stop = stoppedAt()
        val n = Pacing.due((if (stop > 0L) stop.nanos min now else now) - start, rate, sent)
        (sent + n, (batch(sent, n), stop > 0L))
      }
    }.map(_._2).takeThrough(!_._2).map(_._1).zipWithScan(0L)(_ + _.size).takeWhile(_._2 < limit).map(_._1).filter(_.nonEmpty)
  }
}

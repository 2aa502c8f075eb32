package bankops.jobs.heartbeat

import cats.effect.{ExitCode, IO, Resource}
import cats.syntax.all._
import com.monovore.decline.Opts
import fs2.{Chunk, Stream}
import org.apache.kafka.clients.producer.ProducerRecord
import vulcan.Codec

import java.nio.charset.StandardCharsets.UTF_8
import java.time.Instant
import scala.concurrent.duration._

import bankops.base.{DurationText, Failure, Interrupt, Job, OutputFormat, Shell, TimeoutOpt}
import bankops.services.avro.WireFormat
import bankops.services.bank.{ConfirmAccountCreation, ConfirmMoneyTransfer, Heartbeat}
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.contracts.{SubjectNameStrategy, TopologyOpts}
import bankops.services.kafka.{ChunkProducer, KafkaClients, ReadSpec, RecordDecoder, StartAt, StopAt, TopicReader}
import bankops.services.registry.{Lookup, RegistryClient, SchemaResolver}

/** `bankops heartbeat`: heartbeats and bank commands at a set rate, with the figures of a load test. */
object HeartbeatCommand {

  sealed abstract class Kind(val name: String)
  object Kind {
    case object Heartbeats extends Kind("heartbeat")
    case object Commands extends Kind("commands")
    case object Mixed extends Kind("mixed")
    val all = List(Heartbeats, Commands, Mixed)
  }

  final case class Options(flags: ConnectionFlags, rate: Int, duration: Option[FiniteDuration], count: Option[Long], topic: String,
                           commandsTopic: String, feedbackTopic: String, learn: Boolean, startBeat: Long, kind: Kind, failShare: Double, register: Boolean, seed: Option[Long],
                           strategy: Option[SubjectNameStrategy], output: Option[OutputFormat], timeout: FiniteDuration)

  private val opts: Opts[Options] = (
    ConnectionFlags.opts,
    Opts.option[Int]("rate", "Records per second; 0 = as fast as the broker takes them (default 100).", metavar = "N")
      .mapValidated(r => if (r >= 0) r.validNel else s"--rate must be 0 or more, not $r".invalidNel).withDefault(100),
    Opts.option[String]("duration", "Stop after this long (e.g. 30s, 10m).", metavar = "DURATION")
      .mapValidated(s => DurationText.parse(s).toValidatedNel).orNone,
    Opts.option[Long]("count", "Stop after N records.", metavar = "N").mapValidated(n => if (n > 0) n.validNel else s"--count must be positive, not $n".invalidNel).orNone,
    Opts.option[String]("topic", "Heartbeat topic (default heartbeat).", metavar = "TOPIC").withDefault("heartbeat"),
    Opts.option[String]("commands-topic", "Topic for bank commands (default commands).", metavar = "TOPIC").withDefault("commands"),
    Opts.option[String]("feedback-topic", "Where the handler answers (default command_feedback): created accounts are learned from it.", metavar = "TOPIC")
      .withDefault("command_feedback"),
    Opts.flag("no-learn", "Commands among made-up accounts, learning nothing from the handler (for a commands topic no handler reads).").orFalse.map(!_),
    Opts.option[Long]("start-beat", "The first heartbeat's beat (default 1); each record adds one.", metavar = "N").withDefault(1L),
    Opts.option[String]("kind", "heartbeat (default), commands, or mixed (one heartbeat per command).", metavar = "KIND")
      .mapValidated(k => Kind.all.find(_.name == k).toValidNel(s"--kind must be heartbeat, commands or mixed, not '$k'")).withDefault(Kind.Heartbeats),
    Opts.option[Double]("fail-share", "Share of transfers that must fail by the bank's rules, 0 to 1 (default 0.1).", metavar = "SHARE")
      .mapValidated(s => if (s >= 0 && s <= 1) s.validNel else s"--fail-share must be between 0 and 1, not $s".invalidNel).withDefault(0.1),
    Opts.flag("register", "Register the records' schemas when their subjects are missing (otherwise exit 2).").orFalse,
    Opts.option[Long]("seed", "Seed for generated commands, for repeatable runs.", metavar = "N").orNone,
    TopologyOpts.strategy,
    OutputFormat.opts,
    TimeoutOpt.opts(30)
  ).mapN(Options.apply)

  /** Schema id of a record on a topic: looked up, registered only with --register, else exit 2 naming the subject. */
  private def schemaId[A](registry: RegistryClient, strategy: SubjectNameStrategy, topic: String, register: Boolean)(implicit codec: Codec[A]): IO[Int] = {
    val schema = codec.schema.fold(e => throw new IllegalStateException(e.message), identity)
    val subject = strategy.subject(topic, schema.getFullName)
    registry.schemaId(subject, schema.toString, register).flatMap {
      case Right(id) => IO.pure(id)
      case Left(Lookup.SubjectMissing) => IO.raiseError(Failure.BadInput(s"subject $subject does not exist (register it with `bankops schemas register`, or pass --register)"))
      case Left(_) => IO.raiseError(Failure.BadInput(s"subject $subject has no version matching the ${schema.getFullName} bankops writes (pass --register to add it)"))
    }
  }

  private def writer[A](id: Option[Int], make: Int => WireFormat.Writer[A]): A => Array[Byte] = id.fold((_: A) => Array.emptyByteArray) { i =>
    val w = make(i)
    a => w(a).fold(e => throw new IllegalStateException(e.message), identity)
  }

  def run(o: Options)(shell: Shell): IO[ExitCode] =
    for {
      settings <- Connections.load(o.flags, shell)
      strategy = o.strategy.getOrElse(SubjectNameStrategy.TopicRecord)
      wantsBeats = o.kind != Kind.Commands
      wantsCommands = o.kind != Kind.Heartbeats
      topics = (if (wantsBeats) List(o.topic) else Nil) ++ (if (wantsCommands) List(o.commandsTopic) else Nil)
      learning = wantsCommands && o.learn
      _ <- KafkaClients.partitionCounts(settings.kafka, topics ++ (if (learning) List(o.feedbackTopic) else Nil), o.timeout)
      ids <- RegistryClient.resource(settings, o.timeout).use { registry =>
        (
          if (wantsBeats) schemaId[Heartbeat](registry, strategy, o.topic, o.register).map(Some(_)) else IO.none[Int],
          if (wantsCommands) schemaId[ConfirmAccountCreation](registry, strategy, o.commandsTopic, o.register).map(Some(_)) else IO.none[Int],
          if (wantsCommands) schemaId[ConfirmMoneyTransfer](registry, strategy, o.commandsTopic, o.register).map(Some(_)) else IO.none[Int]
        ).tupled
      }
      (beatId, cacId, cmtId) = ids
      beats = writer(beatId, Heartbeat.writer)
      creations = writer(cacId, WireFormat.Writer[ConfirmAccountCreation](_))
      transfers = writer(cmtId, WireFormat.Writer[ConfirmMoneyTransfer](_))
      pool = new AccountPool
      seed = o.seed.getOrElse(System.nanoTime())
      nextCommand = if (learning) new LearningGenerator(seed, o.failShare, pool).next _ else new CommandGenerator(seed, o.failShare).next _
      // Opened before the first command is sent, at the feedback's end: no creation's answer is missed.
      learner = if (!learning) Resource.pure[IO, Stream[IO, Nothing]](Stream.empty)
                else (RegistryClient.resource(settings, o.timeout), TopicReader.open(settings.kafka, ReadSpec(List(o.feedbackTopic), None, StartAt.End, StopAt.Never), o.timeout))
                  .tupled.map { case (registry, (_, records)) => FeedbackLearner(records, new RecordDecoder(new SchemaResolver(registry)), pool) }
      // Record n (from 0): a heartbeat, a command, or in mixed runs alternately one of each.
      make = (n: Long, now: Array[Byte]) => {
        val beat = o.kind == Kind.Heartbeats || (o.kind == Kind.Mixed && n % 2 == 0)
        if (beat) {
          val b = o.startBeat + (if (o.kind == Kind.Mixed) n / 2 else n)
          new ProducerRecord(o.topic, now, beats(Heartbeat(b)))
        } else nextCommand() match {
          case Left(c) => new ProducerRecord(o.commandsTopic, c.id.toString.getBytes(UTF_8), creations(c))
          case Right(t) => new ProducerRecord(o.commandsTopic, t.id.toString.getBytes(UTF_8), transfers(t))
        }
      }
      summary <- (Interrupt.onCtrlC, ChunkProducer.resource(settings.kafka, o.timeout), learner).tupled.use { case (ctrlC, producer, learn) =>
        producer.warmUp(topics) >> IO.monotonic.flatMap { start =>
          val stats = new LoadStats(start.toNanos)
          val deadline = o.duration.map(start + _)
          // Chunks are made and sent in turn, not overlapped: with the broker on the same 2 cores a second busy
          // thread cost more than it hid (prefetching 4 chunks: ~420k records/s; in turn: ~560k).
          val paced = chunks(o.rate, o.count, make, start)
          val source = paced.interruptWhen(ctrlC.attempt)
            .interruptWhen(deadline.fold(IO.never[Unit])(d => IO.monotonic.flatMap(now => IO.sleep(d - now))).attempt)
          val sent = source.evalMap { chunk =>
            val bytes = chunk.foldLeft(0L)((n, r) => n + r.value.length + Option(r.key).fold(0)(_.length))
            val failed = new java.util.concurrent.atomic.AtomicInteger()
            // Callbacks run on the producer's one network thread: per record only the latency is recorded.
            producer.send(chunk)((nanos, _, error) => if (error == null) stats.latency.record(nanos / 1000) else failed.incrementAndGet())
              .map(_.flatMap(_ => IO {
                stats.records.addAndGet(chunk.size.toLong - failed.get); stats.errors.addAndGet(failed.get.toLong)
                if (failed.get == 0) stats.bytes.addAndGet(bytes)
              }))
          }.parEvalMap(4096)(identity)
          val report = Stream.awakeEvery[IO](5.seconds).evalMap(_ => IO.monotonic.flatMap(now => shell.info(s"heartbeat: ${stats.snapshot(now.toNanos, o.rate).line}")))
          sent.concurrently(report).concurrently(learn).compile.drain >> IO.monotonic.map(now => stats.snapshot(now.toNanos, o.rate))
        }
      }.adaptError(KafkaClients.unreachable(settings.kafka, o.timeout))
      _ <- OutputFormat.resolve(o.output, shell) match {
        case OutputFormat.Json => shell.println(summary.json.noSpaces) >> shell.info(s"heartbeat: done: ${summary.line}")
        case OutputFormat.Table => shell.println(s"heartbeat: ${summary.line}")
      }
      _ <- shell.warn(f"achieved ${summary.recordsPerSecond}%.1f records/s of the ${o.rate} asked for: the broker or this machine could not keep up")
        .whenA(o.rate > 0 && summary.seconds >= 2 && summary.recordsPerSecond < o.rate * 0.98 && o.count.forall(_ > o.rate.toLong * 2))
    } yield if (summary.errors > 0) ExitCode(Failure.ExitUnavailable) else ExitCode.Success

  /** Chunks of records at `rate` per second (0: as fast as taken), `count` in all if given. Pacing follows
    * the clock, not the tick count, so a late tick is made up and the rate holds over the run.
    */
  private def chunks(rate: Int, count: Option[Long], make: (Long, Array[Byte]) => ProducerRecord[Array[Byte], Array[Byte]],
                     start: FiniteDuration): Stream[IO, Chunk[ProducerRecord[Array[Byte], Array[Byte]]]] = {
    val limit = count.getOrElse(Long.MaxValue)
    def batch(from: Long, n: Long): Chunk[ProducerRecord[Array[Byte], Array[Byte]]] = {
      val k = (n min (limit - from)).toInt
      // Records of one chunk are made within the same moment: one key for the time produced.
      val now = Instant.now().toString.getBytes(UTF_8)
      Chunk.array(Array.tabulate[AnyRef](k)(i => make(from + i, now))).asInstanceOf[Chunk[ProducerRecord[Array[Byte], Array[Byte]]]]
    }
    if (rate == 0) Stream.iterate(0L)(_ + 4096).takeWhile(_ < limit).map(from => batch(from, 4096))
    else {
      Stream.fixedRate[IO](Pacing.tick(rate)).evalMapAccumulate(0L) { (sent, _) =>
          IO.monotonic.map { now =>
            val n = Pacing.due(now - start, rate, sent)
            (sent + n, batch(sent, n))
          }
        }.map(_._2).zipWithScan(0L)(_ + _.size).takeWhile(_._2 < limit).map(_._1).filter(_.nonEmpty)
    }
  }

  val job: Job = Job(
    "heartbeat",
    "Heartbeats and bank commands at a set rate (Confluent wire format), reporting records/s, MB/s and acknowledgement latency percentiles.",
    "bankops heartbeat --rate 1000 --duration 60s --kind mixed",
    opts.map(o => run(o) _)
  )
}

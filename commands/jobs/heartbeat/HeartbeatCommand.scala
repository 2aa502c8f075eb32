package bankops.jobs.heartbeat

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{DurationText, Failure, Interrupt, Job, OutputFormat, Shell, TimeoutOpt}
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.contracts.{SubjectNameStrategy, TopologyOpts}
import bankops.services.kafka.{KafkaClients, TopicName}
import bankops.services.load.{LoadGenerator, LoadKind, LoadSpec}

/** `bankops heartbeat`: heartbeats and bank commands at a set rate, with the figures of a load test. */
object HeartbeatCommand {

  final case class Options(flags: ConnectionFlags, rate: Int, duration: Option[FiniteDuration], count: Option[Long], topic: String,
                           commandsTopic: String, feedbackTopic: String, learn: Boolean, startBeat: Long, kind: LoadKind, failShare: Double, register: Boolean, seed: Option[Long],
                           strategy: Option[SubjectNameStrategy], output: Option[OutputFormat], timeout: FiniteDuration)

  private val opts: Opts[Options] = (
    ConnectionFlags.opts,
    Opts.option[Int]("rate", "Records per second; 0 = as fast as the broker takes them (default 100).", metavar = "N")
      .mapValidated(r => if (r >= 0) r.validNel else s"--rate must be 0 or more, not $r".invalidNel).withDefault(100),
    Opts.option[String]("duration", "Stop after this long (e.g. 30s, 10m).", metavar = "DURATION")
      .mapValidated(s => DurationText.parse(s).toValidatedNel).orNone,
    Opts.option[Long]("count", "Stop after N records.", metavar = "N").mapValidated(n => if (n > 0) n.validNel else s"--count must be positive, not $n".invalidNel).orNone,
    TopicName.option("topic", "Heartbeat topic (default heartbeat).").withDefault("heartbeat"),
    Opts.option[String]("commands-topic", "Topic for bank commands (default commands).", metavar = "TOPIC").withDefault("commands"),
    Opts.option[String]("feedback-topic", "Where the handler answers (default command_feedback): created accounts are learned from it.", metavar = "TOPIC")
      .withDefault("command_feedback"),
    Opts.flag("no-learn", "Commands among made-up accounts, learning nothing from the handler (for a commands topic no handler reads).").orFalse.map(!_),
    Opts.option[Long]("start-beat", "The first heartbeat's beat (default 1); each record adds one.", metavar = "N").withDefault(1L),
    Opts.option[String]("kind", "heartbeat (default), commands, or mixed (one heartbeat per command).", metavar = "KIND")
      .mapValidated(k => LoadKind.parse(k).leftMap(e => s"--kind $e").toValidatedNel).withDefault(LoadKind.Heartbeats),
    Opts.option[Double]("fail-share", "Share of transfers that must fail by the bank's rules, 0 to 1 (default 0.1).", metavar = "SHARE")
      .mapValidated(s => if (s >= 0 && s <= 1) s.validNel else s"--fail-share must be between 0 and 1, not $s".invalidNel).withDefault(0.1),
    Opts.flag("register", "Register the records' schemas when their subjects are missing (otherwise exit 2).").orFalse,
    Opts.option[Long]("seed", "Seed for generated commands, for repeatable runs.", metavar = "N").orNone,
    TopologyOpts.strategy,
    OutputFormat.opts,
    TimeoutOpt.opts(30)
  ).mapN(Options.apply)

  def run(o: Options)(shell: Shell): IO[ExitCode] =
    for {
      settings <- Connections.load(o.flags, shell)
      spec = LoadSpec(o.kind, o.topic, o.commandsTopic, o.feedbackTopic, o.learn, o.startBeat, o.failShare, o.register,
               o.seed.getOrElse(System.nanoTime()), o.strategy.getOrElse(SubjectNameStrategy.TopicRecord))
      interrupted <- IO.ref(false)
      summary <- (Interrupt.onCtrlC, LoadGenerator.resource(settings, spec, o.timeout)).tupled.use { case (ctrlC, load) =>
        val deadline = o.duration.fold(IO.never[Unit])(IO.sleep)
        // Ctrl-C stops the making of records; those sent are awaited, so the figures count acknowledgements.
        load.run(o.rate, o.count, IO.race(ctrlC >> interrupted.set(true), deadline).void, s => shell.info(s"heartbeat: ${s.line}"))
      }.adaptError(KafkaClients.unreachable(settings.kafka, o.timeout))
      stopped <- interrupted.get
      mark = if (stopped) "interrupted (Ctrl-C): " else ""
      _ <- OutputFormat.resolve(o.output, shell) match {
        case OutputFormat.Json => shell.println(summary.json.deepMerge(io.circe.Json.obj("interrupted" -> io.circe.Json.fromBoolean(stopped))).noSpaces) >>
            shell.info(s"heartbeat: ${if (stopped) mark else "done: "}${summary.line}")
        case OutputFormat.Table => shell.println(s"heartbeat: $mark${summary.line}")
      }
      _ <- shell.warn(f"achieved ${summary.recordsPerSecond}%.1f records/s of the ${o.rate} asked for: the broker or this machine could not keep up")
        .whenA(o.rate > 0 && summary.seconds >= 2 && summary.recordsPerSecond < o.rate * 0.98 && o.count.forall(_ > o.rate.toLong * 2))
    } yield if (summary.errors > 0) ExitCode(Failure.ExitUnavailable) else if (stopped) ExitCode(130) else ExitCode.Success

  val job: Job = Job(
    "heartbeat",
    "Heartbeats and bank commands at a set rate (Confluent wire format), reporting records/s, MB/s and acknowledgement latency percentiles.",
    "bankops heartbeat --rate 1000 --duration 60s --kind mixed",
    opts.map(o => run(o) _)
  )
}

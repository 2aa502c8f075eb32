package bankops.jobs.heartbeat

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Exit, Flags, Interrupt, Job, OutputFormat, Rendered, Shell, Shown}
import bankops.flags.Arguments._
import bankops.flags.{BankTopicFlags, ConnectionOpts, TopologyFlags}
import bankops.services.bank.BankTopics
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.contracts.SubjectNameStrategy
import bankops.services.kafka.KafkaClients
import bankops.services.load.{LoadGenerator, LoadKind, LoadSpec, LoadSummary}

/** `bankops heartbeat`: heartbeats and bank commands at a set rate, with the figures of a load test. */
object HeartbeatCommand {

  /** Every field at its flag's default: built by name, or refined with `copy`. `topics`: the heartbeat topic
    * (`--topic`), the commands topic and the feedback topic commands are learned from.
    */
  final case class Options(flags: ConnectionFlags = ConnectionFlags(), rate: Int = 100, duration: Option[FiniteDuration] = None,
                           count: Option[Long] = None, topics: BankTopics = BankTopics(), learn: Boolean = true, startBeat: Long = 1L,
                           kind: LoadKind = LoadKind.Heartbeats, failShare: Double = 0.1, register: Boolean = false, seed: Option[Long] = None,
                           strategy: Option[SubjectNameStrategy] = None, output: Option[OutputFormat] = None, timeout: FiniteDuration = 30.seconds)
  object Options {
    /** A learning command load of `count` commands at `rate`/s on the bank's topics, every other flag at its default. */
    def commands(flags: ConnectionFlags, count: Long, rate: Int): Options =
      Options(flags = flags, rate = rate, count = Some(count), kind = LoadKind.Commands)
  }
  private val D = Options()

  private val opts: Opts[Options] = (
    ConnectionOpts.opts,
    Flags.nonNegative[Int]("rate", "Records per second; 0 = as fast as the broker takes them (default 100).").withDefault(D.rate),
    Flags.duration("duration", "Stop after this long (e.g. 30s, 10m).").orNone,
    Flags.positive[Long]("count", "Stop after N records.").orNone,
    BankTopicFlags.opts(BankTopicFlags.Heartbeat("Heartbeat topic", name = "topic"), BankTopicFlags.Commands("Topic for bank commands"),
      BankTopicFlags.Feedback("Where the handler answers, to learn created accounts from")),
    Opts.flag("no-learn", "Commands among made-up accounts, learning nothing from the handler (for a commands topic no handler reads).").orFalse.map(
      !_),
    Opts.option[Long]("start-beat", "The first heartbeat's beat (default 1); each record adds one.", metavar = "N").withDefault(D.startBeat),
    Flags.option[LoadKind]("kind", "heartbeat (default), commands, or mixed (one heartbeat per command).").withDefault(D.kind),
    Opts.option[Double]("fail-share", "Share of transfers that must fail by the bank's rules, 0 to 1 (default 0.1).", metavar = "SHARE")
      .mapValidated(s => if (s >= 0 && s <= 1) s.validNel else s"--fail-share must be between 0 and 1, not $s".invalidNel).withDefault(D.failShare),
    Opts.flag("register", "Register the records' schemas when their subjects are missing (otherwise exit 2).").orFalse,
    Opts.option[Long]("seed", "Seed for generated commands, for repeatable runs.", metavar = "N").orNone,
    TopologyFlags.strategy,
    OutputFormat.opts,
    Flags.timeout(D.timeout)
  ).mapN { (flags, rate, duration, count, topics, learn, startBeat, kind, failShare, register, seed, strategy, output, timeout) =>
    Options(flags = flags, rate = rate, duration = duration, count = count, topics = topics, learn = learn, startBeat = startBeat, kind = kind,
      failShare = failShare, register = register, seed = seed, strategy = strategy, output = output, timeout = timeout)
  }

  /** What a run did: its figures, and whether Ctrl-C ended it. */
  final case class Report(summary: LoadSummary, interrupted: Boolean)

  /** The load, run until its count, its duration or Ctrl-C; progress lines go to stderr as it runs. */
  def generate(o: Options, shell: Shell): IO[Report] =
    for {
      settings <- Connections.load(o.flags, shell)
      spec = LoadSpec(o.kind, seed = o.seed.getOrElse(System.nanoTime()), bank = o.topics, learn = o.learn, startBeat = o.startBeat,
        failShare = o.failShare, register = o.register, strategy = o.strategy.getOrElse(SubjectNameStrategy.TopicRecord))
      interrupted <- IO.ref(false)
      summary <- (Interrupt.onCtrlC, LoadGenerator.resource(settings, spec, o.timeout)).tupled.use { case (ctrlC, load) =>
        val deadline = o.duration.fold(IO.never[Unit])(IO.sleep)
        // Ctrl-C stops the making of records; those sent are awaited, so the figures count acknowledgements.
        load.run(o.rate, o.count, IO.race(ctrlC >> interrupted.set(true), deadline).void, s => shell.info(s"heartbeat: ${s.line}"))
      }.adaptError(KafkaClients.unreachable(settings.kafka, o.timeout))
      stopped <- interrupted.get
    } yield Report(summary, stopped)

  /** The one renderer: the figures (a JSON object, or a line for people), the records not written, a rate not reached. */
  def render(o: Options, r: Report): Shown = {
    val Report(summary, stopped) = r
    val mark = if (stopped) "interrupted (Ctrl-C): " else ""
    val json = summary.json.deepMerge(io.circe.Json.obj("interrupted" -> io.circe.Json.fromBoolean(stopped)))
    val slow = o.rate > 0 && summary.seconds >= 2 && summary.recordsPerSecond < o.rate * 0.98 && o.count.forall(_ > o.rate.toLong * 2)
    Shown(o.output,
      Rendered.result(List(json), s"heartbeat: $mark${summary.line}") ++
        Rendered.jsonNote(s"heartbeat: ${if (stopped) mark else "done: "}${summary.line}") ++
        Rendered.all(summary.firstError.filter(_ => summary.errors > 0).toList.map(e =>
            Rendered.warning(s"heartbeat: ${summary.errors} record(s) not written; the first error: $e"))) ++
        Rendered.warning(
          f"achieved ${summary.recordsPerSecond}%.1f records/s of the ${o.rate} asked for: the broker or this machine could not keep up")
          .when(slow),
      if (summary.errors > 0) Exit.Unavailable else if (stopped) Exit.Interrupted else Exit.Ok)
  }

  val job: Job[Options, Report] = Job(
    "heartbeat",
    "Heartbeats and bank commands at a set rate (Confluent wire format), reporting records/s, MB/s and acknowledgement latency percentiles.",
    "bankops heartbeat --rate 1000 --duration 60s --kind mixed",
    opts
  )(generate, render)
}

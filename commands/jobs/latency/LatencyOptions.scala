package bankops.jobs.latency

import cats.data.NonEmptyList
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Flags, OutputFormat}
import bankops.services.bank.{BankNames, BankRules}
import bankops.services.config.ConnectionFlags
import bankops.services.contracts.{SubjectNameStrategy, TopologyOpts}
import bankops.services.kafka.TopicName
import bankops.services.load.LoadKind

/** `bankops latency`'s flags. */
final case class LatencyOptions(flags: ConnectionFlags, steps: List[Int], stepDuration: FiniteDuration, loadKind: LoadKind, interval: FiniteDuration,
                                timeout: FiniteDuration, maxTimeouts: Int, account: Option[String], db: Option[Boolean], watchPids: List[Long],
                                group: String, commandsTopic: String, feedbackTopic: String, balanceTopic: String, heartbeatTopic: String,
                                chart: Option[os.Path], overwrite: Boolean, slos: List[Slo], strategy: Option[SubjectNameStrategy],
                                output: Option[OutputFormat],
                                warmUp: FiniteDuration)

object LatencyOptions {
  val DefaultSteps = List(0, 200, 500, 1000, 2000)

  /** Every flag at its default: what `bankops latency` with no flags runs, for callers in this process to adjust. */
  def defaults(flags: ConnectionFlags): LatencyOptions =
    LatencyOptions(flags, DefaultSteps, 30.seconds, LoadKind.Commands, 1.second, 5.seconds, 3, None, None, Nil, BankNames.HandlerGroup,
      BankNames.Commands, BankNames.Feedback, BankNames.BalanceChanged, BankNames.Heartbeat, None, overwrite = false, Nil, None, None, 5.seconds)
  private val D = defaults(ConnectionFlags())

  private val steps: Opts[List[Int]] =
    (Opts.option[String]("load", s"Extra load of each step in records/s, e.g. 0,200,500 (default ${DefaultSteps.mkString(",")}).", metavar = "LIST")
        .mapValidated(LoadSteps.parseList(_).toValidatedNel).orNone,
      Opts.option[String]("ramp", "Extra load as START:STEP:END records/s, e.g. 0:500:3000 (instead of --load).", metavar = "RAMP")
        .mapValidated(LoadSteps.parseRamp(_).toValidatedNel).orNone).tupled.mapValidated {
      case (Some(_), Some(_)) => "--load and --ramp exclude each other: give one".invalidNel
      case (l, r) => l.orElse(r).getOrElse(DefaultSteps).validNel
    }

  val opts: Opts[LatencyOptions] = (
    ConnectionFlags.opts,
    steps,
    Flags.duration("step-duration", "How long each step's load is held (default 30s).").withDefault(D.stepDuration),
    Opts.option[String]("load-kind", "Background load: commands (default; accounts learned from the handler), heartbeat, or mixed.",
      metavar = "commands|heartbeat|mixed")
      .mapValidated(k => LoadKind.parse(k).leftMap(e => s"--load-kind $e").toValidatedNel).withDefault(D.loadKind),
    Flags.duration("interval", "Time between probes (default 1s).").withDefault(D.interval),
    Flags.duration("timeout", "A probe not answered within this long is a timeout (default 5s).").withDefault(D.timeout),
    Flags.positive[Int]("max-timeouts", "End the run after this many timed-out probes (default 3).").withDefault(D.maxTimeouts),
    Opts.option[String]("account", "Probe this existing account (iban) instead of opening one; only the probes should change it.", metavar = "IBAN")
      .mapValidated(i => if (BankRules.isValidIban(i)) i.validNel else s"--account '$i' is not a valid iban of the bank".invalidNel).orNone,
    (Opts.flag("db", "Also time until balance.amount shows each probe (default when a database is configured).").map(_ => true) orElse
      Opts.flag("no-db", "Do not read PostgreSQL.").map(_ => false)).orNone,
    Opts.options[Long]("watch-pid", "Sample CPU and memory of this process (repeatable; default: the sandbox's handler).", metavar = "PID")
      .map(_.toList).withDefault(Nil),
    Opts.option[String]("group", s"The handler's consumer group, for its lag (default ${BankNames.HandlerGroup}).", metavar = "GROUP")
      .withDefault(D.group),
    TopicName.option("commands-topic", "Topic the handler consumes", BankNames.Commands),
    TopicName.option("feedback-topic", "Topic of the handler's feedback", BankNames.Feedback),
    TopicName.option("balance-topic", "Topic of the balance changes", BankNames.BalanceChanged),
    TopicName.option("heartbeat-topic", "Topic of heartbeat load", BankNames.Heartbeat),
    Opts.option[String]("chart", "Write the two figures to this .png or .svg file.", metavar = "FILE").map(os.Path(_, os.pwd)).orNone,
    Opts.flag("overwrite", "Replace the --chart file if it exists (only a regular file: never a directory, a link or a device).").orFalse,
    Opts.options[String]("slo",
      "A latency objective every step must meet, e.g. p99<200ms or balance:p99.9<1s; exit 1 when one is broken (repeatable).", metavar = "SLO")
      .mapValidated(_.traverse(s => Slo.parse(s).toValidatedNel)).map((l: NonEmptyList[Slo]) => l.toList).withDefault(Nil),
    TopologyOpts.strategy,
    OutputFormat.opts,
    Flags.duration("warm-up",
      "Probe this long with no extra load before the first step, reported apart: a handler or client " +
        "started cold does not read as the first step's steady state (default 5s; 0 for none).", zero = true).withDefault(D.warmUp)
  ).mapN(LatencyOptions.apply)
}

package bankops.jobs.latency

import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Flags, OutputFormat}
import bankops.flags.Arguments._
import bankops.flags.{BankTopicFlags, ConnectionOpts, TopologyFlags}
import bankops.services.bank.{BankNames, BankRules, BankTopics}
import bankops.services.config.ConnectionFlags
import bankops.services.contracts.SubjectNameStrategy
import bankops.services.load.LoadKind

/** When and how hard the run probes: the extra load of each step and how long it is held, a probe every `interval`
  * that times out after `timeout`, the run ending after `maxTimeouts` timed-out probes, `warmUp` of probes first (with
  * `settle`, ending as soon as they have settled, at most `warmUp`).
  */
final case class LatencySchedule(steps: List[Int] = LatencySchedule.DefaultSteps, stepDuration: FiniteDuration = 30.seconds,
                                 interval: FiniteDuration = 1.second, timeout: FiniteDuration = 5.seconds, maxTimeouts: Int = 3,
                                 warmUp: FiniteDuration = 5.seconds, settle: Boolean = false)
object LatencySchedule {
  val DefaultSteps = List(0, 200, 500, 1000, 2000)
}

/** What the run gives besides its verdict: the table's format, a chart file, the objectives checked. */
final case class LatencyReporting(output: Option[OutputFormat] = None, chart: Option[os.Path] = None, overwrite: Boolean = false,
                                  slos: List[Slo] = Nil)

/** `bankops latency`'s flags, grouped by concern, each at its flag's default: built by name, or refined with `copy`.
  * `topics`: the bank's topics the probes and the load go through; `group`: the handler's consumer group (for its lag).
  * `floor`: Kafka's exactly-once floor measured first, on the same cluster with the same schedule and load, and
  * reported beside the handler.
  */
final case class LatencyOptions(flags: ConnectionFlags = ConnectionFlags(), schedule: LatencySchedule = LatencySchedule(),
                                loadKind: LoadKind = LoadKind.Commands, topics: BankTopics = BankTopics(), group: String = BankNames.HandlerGroup,
                                account: Option[String] = None, db: Option[Boolean] = None, watchPids: List[Long] = Nil,
                                strategy: Option[SubjectNameStrategy] = None, reporting: LatencyReporting = LatencyReporting(),
                                floor: Boolean = false)

object LatencyOptions {
  import LatencySchedule.DefaultSteps

  /** Every flag at its default: what `bankops latency` with no flags runs, for callers in this process to adjust. */
  def defaults(flags: ConnectionFlags): LatencyOptions = LatencyOptions(flags = flags)
  private val D = LatencyOptions()

  private val steps: Opts[List[Int]] =
    (Opts.option[String]("load", s"Extra load of each step in records/s, e.g. 0,200,500 (default ${DefaultSteps.mkString(",")}).", metavar = "LIST")
        .mapValidated(LoadSteps.parseList(_).toValidatedNel).orNone,
      Opts.option[String]("ramp", "Extra load as START:STEP:END records/s, e.g. 0:500:3000 (instead of --load).", metavar = "RAMP")
        .mapValidated(LoadSteps.parseRamp(_).toValidatedNel).orNone).tupled.mapValidated {
      case (Some(_), Some(_)) => "--load and --ramp exclude each other: give one".invalidNel
      case (l, r) => l.orElse(r).getOrElse(DefaultSteps).validNel
    }

  private val schedule: Opts[LatencySchedule] = (
    steps,
    Flags.duration("step-duration", "How long each step's load is held (default 30s).").withDefault(D.schedule.stepDuration),
    Flags.duration("interval", "Time between probes (default 1s).").withDefault(D.schedule.interval),
    Flags.duration("timeout", "A probe not answered within this long is a timeout (default 5s).").withDefault(D.schedule.timeout),
    Flags.positive[Int]("max-timeouts", "End the run after this many timed-out probes (default 3).").withDefault(D.schedule.maxTimeouts),
    Flags.duration("warm-up",
      "Probe this long with no extra load before the first step, reported apart: a handler or client " +
        "started cold does not read as the first step's steady state (default 5s; 0 for none).", zero = true).withDefault(D.schedule.warmUp)
  ).mapN((steps, stepDuration, interval, timeout, maxTimeouts, warmUp) =>
    LatencySchedule(steps = steps, stepDuration = stepDuration, interval = interval, timeout = timeout, maxTimeouts = maxTimeouts, warmUp = warmUp))

  private val topics: Opts[BankTopics] = BankTopicFlags.opts(BankTopicFlags.Commands("Topic the handler consumes"),
    BankTopicFlags.Feedback("Topic of the handler's feedback"), BankTopicFlags.Balance("Topic of the balance changes"),
    BankTopicFlags.Heartbeat("Topic of heartbeat load"))

  private val reporting: Opts[LatencyReporting] = (
    OutputFormat.opts,
    Opts.option[String]("chart", "Write the two figures to this .png or .svg file.", metavar = "FILE").map(os.Path(_, os.pwd)).orNone,
    Opts.flag("overwrite", "Replace the --chart file if it exists (only a regular file: never a directory, a link or a device).").orFalse,
    Flags.options[Slo]("slo",
      "A latency objective every step must meet, e.g. p99<200ms or balance:p99.9<1s; exit 1 when one is broken (repeatable).")
      .map(_.toList).withDefault(Nil)
  ).mapN((output, chart, overwrite, slos) => LatencyReporting(output = output, chart = chart, overwrite = overwrite, slos = slos))

  val opts: Opts[LatencyOptions] = (
    ConnectionOpts.opts,
    schedule,
    Flags.option[LoadKind]("load-kind", "Background load: commands (default; accounts learned from the handler), heartbeat, or mixed.",
      metavar = "commands|heartbeat|mixed").withDefault(D.loadKind),
    topics,
    Opts.option[String]("group", s"The handler's consumer group, for its lag (default ${BankNames.HandlerGroup}).", metavar = "GROUP")
      .withDefault(D.group),
    Opts.option[String]("account", "Probe this existing account (iban) instead of opening one; only the probes should change it.", metavar = "IBAN")
      .mapValidated(i => if (BankRules.isValidIban(i)) i.validNel else s"--account '$i' is not a valid iban of the bank".invalidNel).orNone,
    (Opts.flag("db", "Also time until balance.amount shows each probe (default when a database is configured).").map(_ => true) orElse
      Opts.flag("no-db", "Do not read PostgreSQL.").map(_ => false)).orNone,
    Opts.options[Long]("watch-pid", "Sample CPU and memory of this process (repeatable; default: the sandbox's handler).", metavar = "PID")
      .map(_.toList).withDefault(D.watchPids),
    TopologyFlags.strategy,
    reporting,
    Opts.flag("floor",
      "First measure Kafka's exactly-once floor on the same cluster, with the same steps and load: a relay with the " +
        "handler's client settings and no database copies records between two scratch topics shaped as the commands topic, " +
        s"in a transaction per batch; reported beside the handler, and removed at the end. Needs DESCRIBE_CONFIGS on the commands " +
        s"topic; CREATE, DELETE, READ and WRITE on topics ${FloorTopics.Prefix}*; READ and DELETE on groups ${FloorTopics.Prefix}*; " +
        s"WRITE on transactional ids ${FloorTopics.Prefix}*.").orFalse
  ).mapN { (flags, schedule, loadKind, topics, group, account, db, watchPids, strategy, reporting, floor) =>
    LatencyOptions(flags = flags, schedule = schedule, loadKind = loadKind, topics = topics, group = group, account = account, db = db,
      watchPids = watchPids, strategy = strategy, reporting = reporting, floor = floor)
  }
}

package bankops.jobs.balances

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Flags, Job, OutputFormat, Rendered, Shell, Shown}
import bankops.flags.{BankTopicFlags, ConnectionOpts, SourceOpts}
import bankops.services.bank.{BankNames, BankTopics}
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.kafka.{Doing, KafkaClients, KeyPartition, ReadSpec, StartAt, StopAt}
import bankops.services.records.RecordDecoder
import bankops.services.registry.{RegistryClient, SchemaResolver}

/** `bankops balances validate`: the balances on Kafka and in PostgreSQL agree, or here is how they differ. */
object BalancesCommand {

  /** Every field at its flag's default: built by name, or refined with `copy`. */
  final case class Options(flags: ConnectionFlags = ConnectionFlags(), topic: String = BankTopics().balance, table: String = BankNames.BalanceTable,
                           partitions: Option[List[Int]] = None, settle: Option[FiniteDuration] = None, show: Int = 20,
                           output: Option[OutputFormat] = None, timeout: FiniteDuration = 30.seconds)
  object Options {
    /** `balances validate` with no flags but the connection's. */
    def defaults(flags: ConnectionFlags): Options = Options(flags = flags)
  }
  private val D = Options()

  private val opts: Opts[Options] = (
    ConnectionOpts.opts,
    BankTopicFlags.opts(BankTopicFlags.Balance("The BalanceChanged topic", name = "topic")).map(_.balance),
    Opts.option[String]("table", s"The balance table, optionally schema-qualified (default ${BankNames.BalanceTable}).", metavar = "TABLE")
      .withDefault(D.table),
    SourceOpts.partitions,
    Flags.duration("settle", "Re-check accounts that differ after this long, with the events and rows that changed meanwhile (e.g. 10s).").orNone,
    Flags.positive[Int]("show", "Findings listed in the table (default 20).").withDefault(D.show),
    OutputFormat.opts,
    Flags.timeout(D.timeout)
  ).mapN((flags, topic, table, partitions, settle, show, output, timeout) =>
    Options(flags = flags, topic = topic, table = table, partitions = partitions, settle = settle, show = show, output = output, timeout = timeout))

  private final case class Timed[A](value: A, seconds: Double)
  private def timed[A](io: IO[A]): IO[Timed[A]] = io.timed.map { case (d, a) => Timed(a, d.toMillis / 1000.0) }

  def validate(o: Options, shell: Shell): IO[ValidationReport] =
    for {
      settings <- Connections.load(o.flags, shell)
      count <- KafkaClients.partitionCount(settings.kafka, o.topic, o.timeout, Some(Doing.reading(List(o.topic))))
      partitions = o.partitions.getOrElse((0 until count).toList).sorted
      _ <- partitions.find(_ >= count).traverse_(p => IO.raiseError(Failure.BadInput(s"topic ${o.topic} has no partition $p (it has $count)")))
      // An account's events are keyed by iban, so its partition is the default partitioner's: the rows this share owns.
      mine = (iban: String) => partitions.contains(KeyPartition.of(iban, count))
      fold = new EventFold
      report <- (BalanceTable.open(settings.database, o.table, o.timeout), RegistryClient.resource(settings, o.timeout)).tupled.use {
        case (table, registry) =>
          val decoder = new RecordDecoder(new SchemaResolver(registry), plainValues = false)
          for {
            // The end offsets when the run starts: one consistent snapshot of the topic.
            plan <- timed(EventFold.read(settings.kafka, ReadSpec(List(o.topic), Some(partitions), StartAt.Beginning, StopAt.End), decoder, fold,
                o.timeout))
            rows <- timed(table.all(mine).adaptError(BalanceTable.failure(o.table, settings.database)))
            first <- timed(IO(Comparison.findings(fold.chains.toMap, rows.value)))
            settled <- settle(o, shell, first.value, plan.value, table, fold, settings.kafka, decoder, partitions)
          } yield ValidationReport(fold.undecodable.toList ++ settled._1, fold.chains.size, rows.value.size,
            (fold.chains.keySet ++ rows.value.keySet).size, fold.events, partitions, plan.seconds, rows.seconds, first.seconds, settled._2)
      }
    } yield report

  /** With --settle, accounts that differ are checked again once the events and rows that arrived meanwhile are in. */
  private def settle(o: Options, shell: Shell, first: List[Finding], plan: bankops.services.kafka.ReadPlan, table: BalanceTable, fold: EventFold,
                     kafka: bankops.services.config.KafkaSettings, decoder: RecordDecoder, partitions: List[Int]): IO[(List[Finding], Int)] = {
    val again = Comparison.differing(first)
    o.settle.filter(_ => again.nonEmpty).fold(IO.pure((first, 0))) { wait =>
      shell.info(s"balances: ${again.size} accounts differ; checking them again in ${wait.toSeconds} s") >> IO.sleep(wait) >>
        EventFold.read(kafka, ReadSpec(List(o.topic), Some(partitions), StartAt.Offsets(EventFold.ends(plan)), StopAt.End), decoder, fold,
          o.timeout) >>
        table.some(again).map { fresh =>
          val rechecked = again.toList.flatMap(iban => Comparison.forAccount(iban, fold.chains.get(iban), fresh.get(iban)))
          (first.filterNot(f => again(f.iban)) ++ rechecked, again.size)
        }
    }
  }

  /** The one renderer: the findings and the summary, the job summary for GitHub, exit 1 on any finding. */
  def render(o: Options, report: ValidationReport): Shown =
    Shown(o.output,
      Rendered.result(report.findings.map(_.json) :+ report.summaryJson, report.table(o.show)) ++
        Rendered.summary(report.stepSummary(o.show)) ++ Rendered.jsonNote(s"balances: ${report.summaryLine}"),
      if (report.findings.isEmpty) Exit.Ok else Exit.Difference)

  private val validateCmd =
    Opts.subcommand("validate", "Check every account's BalanceChanged chain and compare its last balance with PostgreSQL; exit 1 on any finding.")(
      opts)

  val job: Job[Options, ValidationReport] = Job(
    "balances",
    "Prove the balances on Kafka (BalanceChanged chains) and in PostgreSQL (balance.amount) agree, or list how they differ.",
    "bankops balances validate --settle 10s --output json",
    validateCmd
  )(validate, render)
}

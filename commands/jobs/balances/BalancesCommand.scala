package bankops.jobs.balances

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Flags, Job, OutputFormat, Rendered, Shell, Shown}
import bankops.services.bank.BankNames
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.kafka.{Doing, KafkaClients, KeyPartition, ReadSpec, SourceOpts, StartAt, StopAt, TopicName}
import bankops.services.records.RecordDecoder
import bankops.services.registry.{RegistryClient, SchemaResolver}

/** `bankops balances validate`: the balances on Kafka and in PostgreSQL agree, or here is how they differ. */
object BalancesCommand {

  final case class Options(flags: ConnectionFlags, topic: String, table: String, partitions: Option[List[Int]], settle: Option[FiniteDuration],
                           show: Int, output: Option[OutputFormat], timeout: FiniteDuration)
  object Options {
    /** `balances validate` with no flags but the connection's. */
    def defaults(flags: ConnectionFlags): Options =
      Options(flags, BankNames.BalanceChanged, BankNames.BalanceTable, None, None, 20, None, 30.seconds)
  }

  private val opts: Opts[Options] = (
    ConnectionFlags.opts,
    TopicName.option("topic", "The BalanceChanged topic", BankNames.BalanceChanged),
    Opts.option[String]("table", s"The balance table, optionally schema-qualified (default ${BankNames.BalanceTable}).", metavar = "TABLE")
      .withDefault(BankNames.BalanceTable),
    SourceOpts.partitions,
    Flags.duration("settle", "Re-check accounts that differ after this long, with the events and rows that changed meanwhile (e.g. 10s).").orNone,
    Flags.positive[Int]("show", "Findings listed in the table (default 20).").withDefault(20),
    OutputFormat.opts,
    Flags.timeout(30.seconds)
  ).mapN(Options.apply)

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

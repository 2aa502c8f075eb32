package bankops.jobs.produce

import cats.data.ValidatedNel
import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Exit, Flags, Job, OutputFormat, Rendered, Shell, Shown}
import bankops.flags.{ConnectionOpts, TopicFlags, TopologyFlags}
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.contracts.{SubjectNameStrategy, TopologyChoice}

/** `bankops produce`: one record from the command line, or JSON lines from standard input, encoded with the subject's
  * registered schema in the Confluent wire format, each checked before it is sent.
  */
object ProduceCommand {

  /** Where the values come from: `--value` (text, or `@FILE`), `--tombstone`, or standard input. */
  sealed trait Values
  object Values {
    final case class Given(text: String) extends Values
    final case class FromFile(file: os.Path) extends Values
    case object Tombstone extends Values
    case object Stdin extends Values
  }

  /** Every field but the topic at its flag's default: built by name, or refined with `copy`. */
  final case class Options(topic: String, flags: ConnectionFlags = ConnectionFlags(), record: Option[String] = None, values: Values = Values.Stdin,
                           key: Option[String] = None, headers: List[(String, String)] = Nil, partition: Option[Int] = None,
                           schemaVersion: Option[Int] = None, dryRun: Boolean = false, topology: TopologyChoice = TopologyChoice(None, None),
                           strategy: Option[SubjectNameStrategy] = None, output: Option[OutputFormat] = None, timeout: FiniteDuration = 30.seconds)

  private def header(s: String): ValidatedNel[String, (String, String)] = s.indexOf('=') match {
    case i if i > 0 => (s.take(i), s.drop(i + 1)).validNel
    case _ => s"--header '$s' is not KEY=VALUE".invalidNel
  }

  private val values: Opts[Values] =
    (Opts.option[String]("value",
        "The value as JSON (as inspect prints it), or @FILE for a file holding one. Without it (and " +
          "without --tombstone): JSON lines on standard input, one value per line.", metavar = "JSON").orNone,
      Opts.flag("tombstone", "Send a null value (a tombstone: deletes the key under compaction); needs --key.").orFalse).tupled.mapValidated {
      case (Some(_), true) => "--value and --tombstone exclude each other".invalidNel
      case (Some(v), _) if v.startsWith("@") => (Values.FromFile(os.Path(v.drop(1), os.pwd)): Values).validNel
      case (Some(v), _) => (Values.Given(v): Values).validNel
      case (None, true) => (Values.Tombstone: Values).validNel
      case (None, false) => (Values.Stdin: Values).validNel
    }

  private val opts: Opts[Options] = (
    ConnectionOpts.opts,
    TopicFlags.option("topic", "Topic to produce to."),
    Opts.option[String]("record", "Record type (simple or full name); default: the topology's only type for the topic.",
      metavar = "NAME").orNone,
    values,
    Opts.option[String]("key", "Key (UTF-8 text); default: the value's field the topology keys the record by.", metavar = "KEY").orNone,
    Opts.options[String]("header", "Header KEY=VALUE (repeatable).", metavar = "KEY=VALUE").mapValidated(_.traverse(header)).map(_.toList)
      .withDefault(Nil),
    Flags.nonNegative[Int]("partition", "Partition to send to; default: by key, as the default partitioner chooses.").orNone,
    Flags.positive[Int]("schema-version", "Encode with this version of the subject instead of its latest.").orNone,
    Opts.flag("dry-run", "Check and encode; show the records (schema id, subject, key, headers, value bytes); send nothing.").orFalse,
    TopologyFlags.choice,
    TopologyFlags.strategy,
    OutputFormat.opts,
    Flags.timeout(30.seconds)
  ).mapN { (flags, topic, record, values, key, headers, partition, schemaVersion, dryRun, topology, strategy, output, timeout) =>
    Options(topic, flags = flags, record = record, values = values, key = key, headers = headers, partition = partition,
      schemaVersion = schemaVersion, dryRun = dryRun, topology = topology, strategy = strategy, output = output, timeout = timeout)
  }.mapValidated { o =>
    if (o.values == Values.Tombstone && o.key.isEmpty) "--tombstone needs --key: a tombstone deletes the record of one key".invalidNel
    else o.validNel
  }

  /** A run, for the CLI and for callers in this process: `onAck` hears of each record as the broker acknowledges it,
    * `onChecked` (with `--dry-run`) of each record checked and encoded.
    */
  def produce(o: Options, shell: Shell, onAck: Acked => IO[Unit] = _ => IO.unit,
              onChecked: Outbound => IO[Unit] = _ => IO.unit): IO[ProduceReport] =
    for {
      settings <- Connections.load(o.flags, shell)
      topology <- TopologyChoice.load(o.topology, shell)
      report <- ProduceRun(o, settings, topology, shell, onAck, onChecked)
    } yield report

  /** The CLI's run: each record on stdout as the broker acknowledges it (a table's header before the first), or with
    * `--dry-run` as it is checked (a blank line between two blocks), so a dry run of any input holds none of it.
    */
  def send(o: Options, shell: Shell): IO[ProduceReport] = {
    val printed = new java.util.concurrent.atomic.AtomicBoolean(false)
    val format = OutputFormat.resolve(o.output, shell)
    def onAck(a: Acked): IO[Unit] = format match {
      case OutputFormat.Json => shell.println(a.json.noSpaces)
      case OutputFormat.Table => shell.println(Acked.header).whenA(!printed.getAndSet(true)) >> shell.println(a.row)
    }
    def onChecked(ob: Outbound): IO[Unit] = format match {
      case OutputFormat.Json => shell.println(ob.json.noSpaces)
      case OutputFormat.Table => shell.println(if (printed.getAndSet(true)) "\n" + ob.text else ob.text)
    }
    produce(o, shell, onAck, onChecked)
  }

  /** The one renderer: how many records were acknowledged, or checked by a dry run (each was shown as it came). */
  def render(o: Options, report: ProduceReport): Shown = {
    val summary =
      if (o.dryRun) Rendered.note(s"produce: dry run: ${report.checked} record(s) checked and encoded; nothing sent")
      else if (report.interrupted && report.acked == 0) Rendered.note("produce: interrupted (Ctrl-C): 0 records acknowledged, nothing sent")
      else if (report.interrupted) Rendered.note(s"produce: interrupted (Ctrl-C): ${report.acked} record(s) acknowledged")
      else Rendered.note(s"produce: ${report.acked} record(s) acknowledged").when(report.acked != 1 || o.values == Values.Stdin)
    Shown(o.output, summary, if (report.interrupted) Exit.Interrupted else Exit.Ok)
  }

  val job: Job[Options, ProduceReport] = Job(
    "produce",
    "Produce records from JSON (--value, or JSON lines on stdin) in the Confluent wire format, checked against the subject's schema.",
    """bankops produce --topic commands --record ConfirmMoneyTransfer --value '{"token":"...","amount":500,...}'""",
    opts
  )(send, render)
}

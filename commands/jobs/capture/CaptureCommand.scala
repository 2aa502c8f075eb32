package bankops.jobs.capture

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{OutputFile, Exit, Failure, Flags, Job, OutputFormat, Rendered, Shell, Shown, StepSummary}
import bankops.flags.{BankTopicFlags, ConnectionOpts, SourceOpts, TopicFlags, TopologyFlags}
import bankops.services.config.Connections
import bankops.services.contracts.TopologyChoice
import bankops.services.kafka.{StartAt, StopAt}

/** `bankops capture`: the records of a window with everything needed to read and reproduce them (schemas, the groups'
  * offsets, the topics' shape and configs, the topology) in one archive; `capture show ARCHIVE` reads one back.
  */
object CaptureCommand {

  private val Window = CaptureWindow()

  private val capture: Opts[CaptureOptions] = (
    ConnectionOpts.opts,
    TopicFlags.options("topic", "A topic to capture (repeatable; default: the topology's topics).").orNone.map(_.fold(List.empty[String])(_.toList)),
    Opts.option[String]("from", "Start: beginning (default), end, offset:N, timestamp:ISO-8601, ago:DURATION (e.g. ago:15m).",
      metavar = "POSITION").withDefault(Window.fromText),
    Opts.option[String]("to", "Stop: end (default; the end offsets when the capture starts), offset:N, timestamp:ISO-8601.",
      metavar = "POSITION").withDefault(Window.toText),
    Opts.option[String]("open-transactions",
      "With --to end, a transaction open at the end: stop (default; at the last stable offset, said), wait or " +
        "wait:DURATION (for it to end, default 60s, then read to the end), or read (past it, read_uncommitted; those records marked).",
      metavar = "POLICY").mapValidated(p => AtOpenTransaction.parse(p).left.map(e => s"--open-transactions $e").toValidatedNel).orNone,
    SourceOpts.filter,
    Opts.options[String]("group", "Keep this group's offsets (repeatable; default: every group with offsets on the topics).",
      metavar = "GROUP").orEmpty,
    (Opts.options[String]("accounts", "Also keep these accounts' balance rows and whole BalanceChanged chains (repeatable).", metavar = "IBAN")
        .mapValidated(_.traverse(i => CapturedAccounts.checked(i, "--accounts").toValidatedNel)).orEmpty,
      Opts.option[String]("from-findings", "Also keep the accounts a `balances validate -o json` run flagged (its output as a file).",
        metavar = "FILE").map(os.Path(_, os.pwd)).orNone,
      BankTopicFlags.Balance.optional("With --accounts: the topic of their chains (default: the topology's topic of BalanceChanged)."))
      .mapN((ibans, findings, balanceTopic) => AccountsAsked(ibans = ibans, findings = findings, balanceTopic = balanceTopic)),
    Opts.options[String]("redact",
      "Mask this field of every record (e.g. token, or a path a.b; repeatable): re-encoded with the same " +
        "schema, so the archive still decodes; the manifest names the fields.", metavar = "FIELD").orEmpty,
    Opts.flag("skip-unredactable",
      "With --redact: leave out, and name, a record that does not decode (so cannot be masked) " +
        "rather than stop the capture.").orFalse,
    Opts.option[String]("out", "The archive to write (a new name, or an existing file with --overwrite).", "o", "FILE")
      .mapValidated(f => if (f.trim.isEmpty) "--out: an empty path names no file".invalidNel else os.Path(f, os.pwd).validNel).orNone,
    Opts.flag("overwrite", "Replace the archive when it exists (a directory, link or device is never replaced).").orFalse,
    Opts.flag("dry-run", "Show what would be captured and its estimated size; write nothing.").orFalse,
    TopologyFlags.choice,
    TopologyFlags.strategy,
    Flags.timeout(30.seconds)
  ).tupled.mapValidated {
    case (flags, topics, from, to, transactions, filter, groups, accounts, redact, skip, out, overwrite, dryRun, topology, strategy, timeout) =>
      val now = java.time.Instant.now()
      val ibansKept = Option.when(redact.contains("iban") && !accounts.isEmpty)(
        "--redact iban with --accounts or --from-findings: the accounts' rows are captured by their ibans, which a restore needs").toInvalidNel(())
      val endOnly = Option.when(transactions.nonEmpty && to != "end")(
        s"--open-transactions: the window stops at $to, not at the end where a transaction can be open (drop it, or --to end)").toInvalidNel(())
      (ibansKept, endOnly, StartAt.parse(from, now).leftMap(e => s"--from $e").toValidatedNel,
        StopAt.parse(to).leftMap(e => s"--to $e").toValidatedNel,
        out.orElse(Option.when(dryRun)(os.pwd / "dry-run.zip")).toValidNel("--out FILE: where to write the archive (or --dry-run)")).mapN {
        (_, _, start, stop, out) =>
          CaptureOptions(ArchiveOut(out, overwrite = overwrite, dryRun = dryRun), flags = flags,
            window = CaptureWindow(topics, from = start, to = stop, fromText = from, toText = to), filter = filter, groups = groups,
            accounts = accounts, redact = redact, skipUnredactable = skip, topology = topology, strategy = strategy, timeout = timeout,
            transactions = transactions.getOrElse(AtOpenTransaction.Stop))
      }
  }

  def run(o: CaptureOptions, shell: Shell): IO[CaptureReport] =
    for {
      // Where the archive goes is checked before any service is asked (and again before it is moved into place).
      _ <- OutputFile.check("--out", o.archive.file, o.archive.overwrite).unlessA(o.archive.dryRun)
      settings <- Connections.load(o.flags, shell)
      topology <- TopologyChoice.load(o.topology, shell)
      report <- CaptureRun(o, settings, topology, shell)
    } yield report

  /** The one renderer: what was written where, and the job summary; a dry run or Ctrl-C wrote nothing. */
  def render(o: CaptureOptions, report: CaptureReport): Shown =
    if (report.interrupted)
      Shown(None, Rendered.note(s"capture: interrupted (Ctrl-C): nothing written to ${o.archive.file} (it is written only when whole)"),
        Exit.Interrupted)
    else if (o.archive.dryRun) Shown(None, Rendered.note(s"capture: dry run: nothing written"), Exit.Ok)
    else {
      val m = report.manifest
      Shown(None,
        Rendered.note(s"capture: ${m.records} records from ${m.topics.size} topic(s), ${m.files.size} files, " +
          s"${m.asked.groups.size} group(s) written to ${o.archive.file}") ++
          Rendered.all(report.heldBack.map(Rendered.warning)) ++
          Rendered.note(s"capture: ${uncommitted(m)} record(s) past the last stable offset read uncommitted (--open-transactions read): " +
            "marked in the manifest (version 2); they may yet be aborted").when(uncommitted(m) > 0) ++
          Rendered.warning(s"capture: ${report.unredactable._1} record(s) left out: they do not decode, so --redact cannot mask them: " +
            report.unredactable._2.mkString("; ") + (if (report.unredactable._1 > report.unredactable._2.size) "; …" else ""))
            .when(report.unredactable._1 > 0) ++
          Rendered.summary(StepSummary("capture", s"${m.records} records captured to ${o.archive.file.last}", StepSummary.Outcome.Ok,
              facts = List("topics" -> m.asked.topics.mkString(", "), "window" -> s"${m.asked.from} to ${m.asked.to}",
                "records" -> m.records.toString, "groups" -> m.asked.groups.mkString(", "), "archive" -> o.archive.file.toString),
              notes = report.heldBack ++ Option.when(report.unredactable._1 > 0)(
                s"${report.unredactable._1} record(s) left out by --skip-unredactable (they do not decode)"))),
        Exit.Ok)
    }

  private def uncommitted(m: ArchiveManifest): Long = m.topics.map(_.uncommitted).sum

  final case class ShowOptions(archive: os.Path, records: Boolean, topics: List[String], output: Option[OutputFormat])

  /** The archive's manifest to show; with --records, None: the records went to stdout as they were decoded. */
  private def read(o: ShowOptions, shell: Shell): IO[Option[ArchiveManifest]] =
    IO.interruptible(ArchiveReader.open(o.archive)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_)))).bracket { archive =>
      if (o.records) ArchiveShow.records(archive, o.topics, shell).as(None) else IO.pure(Some(archive.manifest))
    }(a => IO.blocking(a.close()))

  private val show = Job.Sub("show",
    "An archive's manifest as a table: what was asked, records per partition, files; " +
      "--records: its records decoded with the archive's own schemas, no cluster needed.",
    (Opts.argument[String]("ARCHIVE").map(os.Path(_, os.pwd)),
      Opts.flag("records", "Print the records (JSON lines as inspect prints them).")
        .orFalse, Opts.options[String]("topic", "With --records: only this topic (repeatable).", metavar = "TOPIC").orEmpty, OutputFormat.opts)
      .mapN(ShowOptions.apply))(read,
    (o, m: Option[ArchiveManifest]) => Shown(o.output, m.fold(Rendered.empty)(ArchiveShow.manifest), Exit.Ok))

  val job: Job.Of = Job.of(
    "capture",
    "One archive of an incident: a window's records with their schemas, the groups' offsets, the topics' shape and the topology; " +
      "`capture show` reads one, `restore` puts it back.",
    "bankops capture --topic commands --topic command_feedback --from ago:15m --out incident.zip"
  )(show.chosen, Job.chosen(capture)(run, render))
}

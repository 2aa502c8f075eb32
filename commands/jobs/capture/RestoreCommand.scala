package bankops.jobs.capture

import cats.effect.{IO, Resource}
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Flags, Interrupt, Job, Rendered, Shell, Shown, StepSummary}
import bankops.flags.ConnectionOpts
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.kafka.TopicName

/** `bankops restore ARCHIVE`: an archive of `capture` put back into the sandbox (default) or any cluster, under new topic
  * and group names so that it never writes into live ones by accident.
  */
object RestoreCommand {
  final case class Options(flags: ConnectionFlags, archive: os.Path, plan: RestorePlan, intoNonEmpty: Boolean, resume: Boolean,
                           keepCompaction: Boolean, dbName: Option[String], timeout: FiniteDuration)

  private def rename(s: String): Either[String, (String, String)] = s.split("=", 2) match {
    case Array(a, b) if a.nonEmpty && b.nonEmpty => TopicName.check("--rename")(b).toEither.left.map(_.head).map(a -> _)
    case _ => Left(s"--rename '$s' is not CAPTURED=TARGET")
  }

  private val opts: Opts[Options] = (
    ConnectionOpts.opts,
    Opts.argument[String]("ARCHIVE").map(os.Path(_, os.pwd)),
    Opts.option[String]("topic-prefix", "Prefix of the restored topics' names (default restored.).", metavar = "PREFIX").withDefault("restored."),
    Opts.options[String]("rename", "A captured topic's restored name, CAPTURED=TARGET (repeatable; overrides the prefix).", metavar = "A=B")
      .mapValidated(_.traverse(r => rename(r).toValidatedNel)).map(_.toList).withDefault(Nil),
    Opts.option[String]("group-prefix", "Prefix of the restored groups' names (default: the topic prefix).", metavar = "PREFIX").orNone,
    Opts.flag("into-non-empty", "Write into a target topic that already holds records.").orFalse,
    Opts.flag("resume",
      "Finish a restore that was interrupted: the records its targets hold are checked against the archive and " +
        "not written again.").orFalse,
    Opts.flag("keep-compaction", "Keep a compacted topic's cleanup.policy on its copy (by default the copy keeps every record).").orFalse,
    Opts.option[String]("db-name", "The database the captured accounts go to, on the target's PostgreSQL (default: restored_ and the prefix).",
      metavar = "NAME").mapValidated(n =>
      if (n.matches("[a-z_][a-z0-9_]{0,62}")) n.validNel else s"--db-name '$n': lower-case letters, digits and '_'".invalidNel).orNone,
    Flags.timeout(30.seconds)
  ).tupled.mapValidated { case (flags, archive, prefix, renames, groupPrefix, nonEmpty, resume, keep, dbName, timeout) =>
    val plan = RestorePlan(prefix, renames.toMap, groupPrefix.getOrElse(prefix))
    val twice = renames.groupBy(_._1).collectFirst { case (a, rs) if rs.size > 1 => s"--rename $a is given ${rs.size} times" }
      .orElse(renames.groupBy(_._2).collectFirst { case (b, rs) if rs.size > 1 => s"--rename: ${rs.map(_._1).mkString(" and ")} both go to $b" })
    lazy val options = Options(flags, archive, plan, intoNonEmpty = nonEmpty, resume = resume, keepCompaction = keep, dbName = dbName,
      timeout = timeout)
    if (twice.isDefined) twice.get.invalidNel
    else if (nonEmpty && resume) "--resume and --into-non-empty: a resume writes only what its targets lack; give one".invalidNel
    else if (prefix.isEmpty && renames.isEmpty && !nonEmpty)
      "an empty --topic-prefix without --rename restores into the captured topics' own names: add --into-non-empty if that is meant".invalidNel
    else if (prefix.nonEmpty)
      TopicName.check("topic-prefix")(prefix + "x").map(_ => options)
    else options.validNel
  }

  /** Restores the archive; its steps are said on stderr as they are done. SIGINT or SIGTERM stops it where it is, what
    * it created named (Left).
    */
  def restore(o: Options, shell: Shell): IO[Either[RestoreInterrupted, RestoreReport]] =
    (Interrupt.onSignals(List("INT", "TERM")), Resource.eval(IO(new RestoreProgress))).tupled.use { case (signal, progress) =>
      // Each records file is read whole before anything is created: its checksum is checked in that reading.
      val run = IO.interruptible(ArchiveReader.open(o.archive, deferRecords = true)).flatMap(r =>
        IO.fromEither(r.left.map(Failure.BadInput(_)))).bracket { archive =>
        for {
          settings <- Connections.load(o.flags, shell)
          dbName = o.dbName.getOrElse("restored_" + o.plan.prefix.toLowerCase.replaceAll("[^a-z0-9]+", "_").stripSuffix("_"))
          report <- RestoreRun(archive, o.plan, o.intoNonEmpty, o.resume, o.keepCompaction, dbName, settings, o.timeout, progress, shell)
        } yield report
      }(a => IO.blocking(a.close()))
      IO.race(signal, run).map(_.left.map(progress.interrupted))
    }

  /** The one renderer: the records per topic and the groups set, and the job summary; or what an interruption left. */
  def render(o: Options, outcome: Either[RestoreInterrupted, RestoreReport]): Shown = outcome.fold(
    i => Shown(None, Rendered.note(i.line) ++ Rendered.summary(StepSummary("restore", i.line, StepSummary.Outcome.Failed)), Exit.Interrupted),
    report => rendered(o, report))

  private def rendered(o: Options, report: RestoreReport): Shown =
    Shown(None,
      Rendered.note(s"restore: ${report.records.values.sum} records into ${report.records.keys.toList.sorted.mkString(", ")}; " +
        s"${report.groups.map(_._1).distinct.size} group(s) set: ${report.groups.map(_._1).distinct.mkString(", ")}") ++
        Rendered.all(report.differences.map(d => Rendered.note(s"restore: differs: $d"))) ++
        Rendered.summary(StepSummary("restore", s"${report.records.values.sum} records restored from ${o.archive.last}",
            StepSummary.Outcome.Ok, facts = report.records.toList.sorted.map { case (t, n) => t -> n.toString }, notes = report.differences)),
      Exit.Ok)

  val job: Job[Options, Either[RestoreInterrupted, RestoreReport]] = Job(
    "restore",
    "Put a capture archive back: topics with the captured partitions and configs (under --topic-prefix, default restored.), " +
      "schemas with ids translated, records with partitions, keys, headers and timestamps, groups at the same positions; " +
      "every line is checked before anything is created, and each way the copy differs is said.",
    "bankops restore incident.zip --topic-prefix incident42.",
    opts
  )(restore, render)
}

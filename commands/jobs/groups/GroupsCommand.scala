package bankops.jobs.groups

import cats.data.NonEmptyList
import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts
import org.apache.kafka.clients.admin.Admin

import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Flags, Interrupt, Job, OutputFormat, Rendered, Shell, Shown, StepSummary, Table}
import bankops.flags.{ConnectionOpts, SourceOpts, TopicFlags}
import bankops.services.config.{ConnectionFlags, Connections, KafkaSettings}
import bankops.services.kafka.{ConsumerGroups, Doing, KafkaClients}

/** `bankops groups list|describe|reset|delete`: consumer-group lag, and offset moves that are planned before they are made. */
object GroupsCommand {

  private final case class Common(flags: ConnectionFlags, output: Option[OutputFormat], timeout: FiniteDuration)
  private val common: Opts[Common] = (ConnectionOpts.opts, OutputFormat.opts, Flags.timeout(30.seconds)).mapN(Common.apply)
  private val groups: Opts[List[String]] = Opts.arguments[String]("GROUP").map(_.toList.distinct)

  /** `doing`: what a refusal by Kafka's authorizer is reported as (see Denied). */
  private def withAdmin[A](c: Common, shell: Shell, doing: Doing)(f: (Admin, KafkaSettings) => IO[A]): IO[A] =
    Connections.load(c.flags, shell).flatMap { settings =>
      KafkaClients.javaAdmin(settings.kafka, c.timeout).use(f(_, settings.kafka)).adaptError(KafkaClients.denied(settings.kafka, doing))
        .adaptError(KafkaClients.unreachable(settings.kafka, c.timeout))
    }

  private def renderList(c: Common, rows: List[GroupListing]): Shown =
    Shown(c.output,
      Rendered.result(rows.map(_.json), if (rows.isEmpty) "(no consumer groups)" else Table.render(GroupListing.header, rows.map(_.cells))) ++
        Rendered.summary(StepSummary("groups list", s"${rows.size} consumer groups", StepSummary.Outcome.Info,
            tables = List(StepSummary.Table(GroupListing.header, rows.map(_.cells), numeric = Set(2, 4))))),
      Exit.Ok)

  private val listCmd = Job.Sub("list", "Every consumer group with its state, members, protocol and total lag.", common)(
    (c, shell) => withAdmin(c, shell, Doing.describing(Nil))((admin, kafka) => new GroupReader(admin, kafka, c.timeout).list), renderList)

  private val watch: Opts[Option[FiniteDuration]] =
    Flags.duration("watch", "Refresh every DURATION (e.g. 5s) until Ctrl-C.", short = "w").orNone

  private final case class DescribeOptions(common: Common, groups: List[String], every: Option[FiniteDuration])

  /** Describe shows each round as it is read (with --watch, until Ctrl-C): its report is the exit code. */
  private def describe(o: DescribeOptions, shell: Shell): IO[ExitCode] = {
    val DescribeOptions(c, names, every) = o
    val format = OutputFormat.resolve(c.output, shell)
    // On a terminal a refresh replaces the screen; elsewhere every round is more JSON lines (or tables) on stdout.
    val clear = shell.println("\u001b[H\u001b[2J").whenA(every.isDefined && format == OutputFormat.Table && shell.stdoutIsTerminal)
    withAdmin(c, shell, Doing.describing(Nil)) { (admin, kafka) =>
      val reader = new GroupReader(admin, kafka, c.timeout)
      val once = reader.describe(names).flatMap { statuses =>
        clear >> OutputFormat.emit(format, shell)(statuses.map(_.json), statuses.map(_.table).mkString("\n\n\n")) >>
          statuses.traverse_(s => StepSummary.write(shell, s.stepSummary)).whenA(every.isEmpty)
      }
      every.fold(once)(e => Interrupt.onCtrlC.use(stop => IO.race((once >> IO.sleep(e)).foreverM, stop).void))
    }.as(Exit.Ok)
  }

  private val describeCmd =
    Job.Sub("describe", "Per partition: committed offset, end, lag in records and in time; members with client id, host and assignment.",
      (common, groups, watch).mapN(DescribeOptions.apply))(describe, (_, code: ExitCode) => Shown.exit(code))

  private final case class ResetOptions(common: Common, groups: List[String], topics: NonEmptyList[String], partitions: Option[List[Int]],
                                        target: ResetTarget, execute: Boolean, saveTo: Option[os.Path], overwrite: Boolean)

  private val resetOpts: Opts[ResetOptions] = (
    common,
    groups,
    TopicFlags.options("topic", "Move the group's offsets on this topic (repeatable).", "t"),
    SourceOpts.partitions,
    Flags.option[ResetTarget]("to",
      "Where to: earliest, latest, offset:N, timestamp:ISO-8601, ago:DURATION (e.g. ago:15m), shift:±N (from the committed " +
        "offset), file:PATH (offsets saved by --save-to)."),
    Opts.flag("execute", "Apply the plan (without it, print the plan and exit 1 when it would change something).").orFalse,
    Opts.option[String]("save-to", "First write the groups' current offsets of these partitions to FILE, for --to file:FILE to undo the move.",
      metavar = "FILE")
      .map(os.Path(_, os.pwd)).orNone,
    Opts.flag("overwrite", "With --save-to: replace the file when it exists (a directory, link or device is never replaced).").orFalse
  ).mapN((common, groups, topics, partitions, target, execute, saveTo, overwrite) =>
    ResetOptions(common, groups, topics, partitions = partitions, target = target, execute = execute, saveTo = saveTo, overwrite = overwrite))

  /** Reset prints its plan, and with --execute each move, as it goes: its report is the exit code and the job summary. */
  private def reset(o: ResetOptions, shell: Shell): IO[GroupReset.Report] =
    withAdmin(o.common, shell, Doing.resettingGroups(o.topics.toList))((admin, _) =>
      GroupReset.run(admin, o.groups, o.topics.toList.distinct, o.partitions, o.target, o.execute, o.saveTo, o.overwrite,
        OutputFormat.resolve(o.common.output, shell), shell))

  private val resetCmd =
    Job.Sub("reset", "Plan moving the committed offsets of inactive groups (exit 1 when it would change something); --execute applies it.",
      resetOpts)(reset, (_, r: GroupReset.Report) => Shown(None, Rendered.summary(r.summary), r.code))

  private final case class DeleteOptions(common: Common, groups: List[String])

  /** The groups named, deleted when none has members (otherwise none is); each said as it goes, so a failure part-way
    * leaves no doubt which were.
    */
  private def delete(o: DeleteOptions, shell: Shell): IO[List[String]] =
    withAdmin(o.common, shell, Doing.deletingGroups) { (admin, _) =>
      ConsumerGroups.describe(admin, o.groups).flatMap { ds =>
        ds.find(_.active).traverse_(d =>
          IO.raiseError(
            Failure.BadInput(s"consumer group ${d.group} has ${d.members.size} active member(s): ${d.memberList}; nothing was deleted"))) >>
          ds.traverse(d => ConsumerGroups.delete(admin, d.group) >> shell.info(s"groups: deleted ${d.group}").as(d.group))
      }
    }

  private val deleteCmd =
    Job.Sub("delete", "Delete empty groups and their committed offsets (--yes required; refused while a group has members).",
      (common, groups, Opts.flag("yes", "Confirm the deletion.").orFalse).tupled.mapValidated { case (c, gs, yes) =>
        if (yes) DeleteOptions(c, gs).validNel else "groups delete removes the groups' committed offsets for good: add --yes to confirm".invalidNel
      })(delete, (_, _: List[String]) => Shown.exit(Exit.Ok))

  val job: Job.Of = Job.of(
    "groups",
    "Consumer groups: list, describe (lag in records and time, members), reset committed offsets (plan first, " +
      "--execute, --save-to to undo), delete empty groups.",
    "bankops groups reset bankops-command-handler --topic commands --to ago:15m --save-to before.json --execute",
  )(listCmd.chosen, describeCmd.chosen, resetCmd.chosen, deleteCmd.chosen)
}

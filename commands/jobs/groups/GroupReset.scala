package bankops.jobs.groups

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import org.apache.kafka.clients.admin.Admin
import org.apache.kafka.common.TopicPartition

import bankops.base.{Exit, Failure, OutputFile, OutputFormat, Shell, StepSummary, Table, TextFile}
import bankops.services.kafka.{ConsumerGroups, EndOffsets, GroupDescription}

/** `groups reset`: facts from the cluster, the pure [[ResetPlan]], and (with --execute) one atomic commit per group. */
private[groups] object GroupReset {

  /** How a reset ended: its exit code, and its job summary (the plan, and whether it was applied). */
  final case class Report(code: ExitCode, summary: StepSummary)

  /** The plan printed; with --execute (and --save-to first) the moves made; the exit code and the plan for the summary. */
  def run(admin: Admin, groups: List[String], topics: List[String], only: Option[List[Int]], target: ResetTarget, execute: Boolean,
          saveTo: Option[os.Path], overwrite: Boolean, format: OutputFormat, shell: Shell): IO[GroupReset.Report] =
    for {
      // A --save-to path that would be refused is named before the cluster is asked anything.
      _ <- saveTo.traverse_(OutputFile.check("--save-to", _, overwrite))
      described <- ConsumerGroups.describe(admin, groups)
      partitions <- topics.flatTraverse(partitionsOf(admin, _, only))
      entries <- target match {
        case ResetTarget.File(p) => IO.blocking {
            TextFile.read(p, "offsets file")
          }.flatMap {
            case Left(problem) => IO.raiseError(Failure.BadInput(problem))
            case Right(text) => IO.fromEither(OffsetsFile.parse(text, p))
          }.flatTap(entries => fileNamesExisting(admin, entries, groups, topics, target))
        case _ => IO.pure(Nil)
      }
      times <- target match {
        case ResetTarget.Time(at) => EndOffsets.forTime(admin, partitions, at.toEpochMilli)
        case _ => IO.pure(Map.empty[TopicPartition, Option[Long]])
      }
      plans <- described.traverse { d =>
        val fromFile = OffsetsFile.offsets(entries, d.group, topics.toSet)
        target match {
          case ResetTarget.File(p) if fromFile.isEmpty =>
            IO.raiseError(Failure.BadInput(s"$p has no offsets of group ${d.group} on ${topics.mkString(", ")}"))
          case _ => GroupReader.facts(admin, d.group, partitions).map(ResetPlan(d.group, target, _, times, fromFile))
        }
      }
      plan = ResetPlan(plans.flatMap(_.rows))
      _ <- print(plan, format, shell)
      active = described.filter(_.active)
      code <- if (execute) apply(admin, plan, active, saveTo, overwrite, shell)
      else
        active.traverse_(d => shell.warn(s"consumer group ${d.group} has active members (${d.memberList}): --execute is refused until they stop")) >>
          save(plan, saveTo, overwrite, shell) >> shell.info(s"groups: ${describe(plan)}${if (plan.isEmpty) "" else "; --execute applies it"}")
            .as(Exit.differsIf(!plan.isEmpty))
    } yield Report(code, stepSummary(plan, executed = execute && code == Exit.Ok))

  /** Every partition an offsets file names for these groups and topics exists: one that does not is a file from
    * another topic's shape, never silently passed over.
    */
  private def fileNamesExisting(admin: Admin, entries: List[OffsetsFile.Entry], groups: List[String], topics: List[String], target: ResetTarget)
      : IO[Unit] =
    topics.traverse_ { topic =>
      EndOffsets.partitions(admin, topic).flatMap { all =>
        entries.find(e => groups.contains(e.group) && e.topic == topic && e.partition >= all.size).traverse_ { e =>
          IO.raiseError[Unit](Failure.BadInput(s"${target match { case ResetTarget.File(p) => p.toString; case _ => "offsets file" }}: " +
              s"group ${e.group} names partition ${e.partition} of $topic, which has ${all.size} partitions (0-${all.size - 1})"))
        }
      }
    }

  private def partitionsOf(admin: Admin, topic: String, only: Option[List[Int]]): IO[List[TopicPartition]] =
    EndOffsets.partitions(admin, topic).flatMap { all =>
      only.fold(IO.pure(all)) { ps =>
        ps.find(_ >= all.size).fold(IO.pure(all.filter(tp => ps.contains(tp.partition))))(p =>
          IO.raiseError(Failure.BadInput(s"topic $topic has no partition $p (it has ${all.size})")))
      }
    }

  private def apply(admin: Admin, plan: ResetPlan, active: List[GroupDescription], saveTo: Option[os.Path], overwrite: Boolean, shell: Shell)
      : IO[ExitCode] =
    active.headOption match {
      case Some(d) => IO.raiseError(Failure.BadInput(s"consumer group ${d.group} has ${d.members.size} active member(s): ${d.memberList}; " +
            "stop them before resetting (a stopped static member leaves after its session timeout); nothing was changed"))
      case None => save(plan, saveTo, overwrite, shell) >> (
          if (plan.isEmpty) shell.info(s"groups: ${describe(plan)}").as(Exit.Ok)
          else plan.offsets.toList.sortBy(_._1).traverse_ { case (g, offsets) =>
            ConsumerGroups.alter(admin, g, offsets) >> ConsumerGroups.committed(admin, g).flatMap { now =>
              val off = offsets.filterNot { case (tp, o) => now.get(tp).contains(o) }
              IO.raiseWhen(off.nonEmpty)(Failure.Difference(
                  s"consumer group $g: the broker accepted the reset, but ${off.keys.map(tp => s"${tp.topic}-${tp.partition}").mkString(", ")} " +
                    "read back differently (did a member join meanwhile?)"))
            }
          } >> shell.info(s"groups: moved ${plan.changed.size} partitions of ${plan.offsets.keys.toList.sorted.mkString(", ")}: " +
            s"${plan.reread} records to read again, ${plan.skip} skipped${saveTo.fold("")(f => s"; to undo: --to file:$f")}").as(Exit.Ok))
    }

  /** Written whole through OutputFile: never through a link, over a directory or a device, nor over a file without --overwrite. */
  private def save(plan: ResetPlan, saveTo: Option[os.Path], overwrite: Boolean, shell: Shell): IO[Unit] =
    saveTo.traverse_ { f =>
      IO.realTimeInstant.flatMap(now => OutputFile.writeText("--save-to", f, overwrite)(OffsetsFile.render(plan.current, now))) >>
        shell.info(s"groups: saved the current offsets of ${plan.current.size} partitions to $f")
    }

  private def describe(plan: ResetPlan): String =
    if (plan.isEmpty) s"nothing to change on ${plan.rows.size} partitions"
    else s"the reset moves ${plan.changed.size} of ${plan.rows.size} partitions: ${plan.reread} records to read again, ${plan.skip} skipped"

  private def print(plan: ResetPlan, format: OutputFormat, shell: Shell): IO[Unit] =
    OutputFormat.emit(format, shell)(plan.rows.map(_.json),
      Table.render(List("group", "topic", "partition", "current", "new", "re-read", "skip", "note"),
        plan.rows.map(r =>
          List(r.group, r.tp.topic, r.tp.partition.toString, r.current.fold("-")(_.toString), r.target.fold("-")(_.toString),
            r.reread.fold("-")(_.toString), r.skip.fold("-")(_.toString), r.note.getOrElse("")))))

  private def stepSummary(plan: ResetPlan, executed: Boolean): StepSummary =
    StepSummary(if (executed) "groups reset (applied)" else "groups reset (plan)", describe(plan),
      if (plan.isEmpty || executed) StepSummary.Outcome.Ok else StepSummary.Outcome.Attention,
      facts = List("partitions" -> plan.rows.size.toString, "moved" -> plan.changed.size.toString, "records to read again" -> plan.reread.toString,
        "records skipped" -> plan.skip.toString),
      tables = List(StepSummary.Table(List("group", "topic", "partition", "current", "new", "re-read", "skip", "note"),
          plan.rows.map(r =>
            List(r.group, r.tp.topic, r.tp.partition.toString, r.current.fold("-")(_.toString), r.target.fold("-")(_.toString),
              r.reread.fold("-")(_.toString), r.skip.fold("-")(_.toString), r.note.getOrElse(""))), numeric = Set(2, 3, 4, 5, 6))))
}

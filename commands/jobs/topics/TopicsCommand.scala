package bankops.jobs.topics

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Exit, Job, OutputFormat, Rendered, Shell, Shown}
import bankops.services.config.Connections
import bankops.services.contracts.{Topology, TopologyOpts}
import bankops.services.plan.{Outcome, TopicAdmin, TopicPlan, TopicSync}

/** `bankops topics plan|apply`: the topology's topics on the cluster, as code; `list|describe` in [[TopicsReading]]. */
object TopicsCommand {

  private val common = TopicsFlags.common

  private val deleteUnlisted = Opts.flag("delete-unlisted", "Also delete topics the topology does not list (never names starting with '_').").orFalse

  private def prepared[A](c: TopicsFlags, shell: Shell)(f: (Topology, TopicAdmin) => IO[A]): IO[A] =
    for {
      topology <- TopologyOpts.load(c.topology, shell)
      settings <- Connections.load(c.flags, shell)
      result <- TopicSync.session(settings.kafka, c.timeout)(f(topology, _))
    } yield result

  final case class PlanOptions(common: TopicsFlags, deleteUnlisted: Boolean)
  final case class ApplyOptions(common: TopicsFlags, deleteUnlisted: Boolean, dryRun: Boolean)

  /** What `plan` found: the changes pending, and those the broker would refuse (asked without making them). */
  final case class PlanReport(plan: TopicPlan, refused: List[Outcome])

  private def planned(o: PlanOptions, shell: Shell): IO[PlanReport] =
    // The broker checks the changes without making them: what apply would refuse is exit 2 or 3 here too, not "pending".
    prepared(o.common, shell)((topology, admin) =>
      TopicSync.plan(admin, topology, o.deleteUnlisted).flatMap(p =>
        (if (p.isEmpty) IO.pure(List.empty[Outcome]) else TopicSync.refusals(admin, p)).map(PlanReport(p, _))))

  private def renderPlan(o: PlanOptions, r: PlanReport): Shown =
    Shown(o.common.output, TopicSync.rendered(r.plan) ++ Rendered.all(r.refused.map(f => Rendered.note(f.refusal))),
      if (r.refused.nonEmpty) ExitCode(TopicSync.exitCode(r.refused)) else Exit.differsIf(!r.plan.isEmpty))

  private val planCmd = Job.Sub("plan", "Compare the topology with the cluster and print what apply would do; exit 1 when changes are pending.",
    (common, deleteUnlisted).mapN(PlanOptions.apply))(planned, renderPlan)

  private def apply(o: ApplyOptions)(shell: Shell): IO[ExitCode] = {
    val ApplyOptions(c, delete, dryRun) = o
    val format = OutputFormat.resolve(c.output, shell)
    prepared(c, shell) { (topology, admin) =>
      TopicSync.plan(admin, topology, delete).flatMap { plan =>
        if (dryRun || plan.isEmpty) Rendered.show(TopicSync.rendered(plan), format, shell).as(Exit.differsIf(dryRun && !plan.isEmpty))
        else Rendered.show(TopicSync.rendered(plan), OutputFormat.Table, shell).whenA(format == OutputFormat.Table) >>
          TopicSync.refusals(admin, plan).flatMap {
            case Nil => run(admin, topology, plan, format, shell)
            case refused =>
              refused.traverse_(o => shell.info(o.refusal)) >>
                shell.info(s"topics: the broker refused ${refused.size} of ${plan.changes.size} changes; nothing was changed")
                  .as(ExitCode(TopicSync.exitCode(refused)))
          }
      }
    }
  }

  private def run(admin: TopicAdmin, topology: Topology, plan: TopicPlan, format: OutputFormat, shell: Shell): IO[ExitCode] =
    admin.execute(plan, validateOnly = false).flatMap { outcomes =>
      val failed = outcomes.filterNot(_.ok)
      Rendered.show(TopicSync.rendered(outcomes), format, shell) >> (
        if (failed.nonEmpty)
          shell.info(
            s"topics: ${outcomes.size - failed.size} of ${outcomes.size} changes applied; failed on " +
              s"${failed.map(_.change.topic).distinct.mkString(", ")}")
            .as(ExitCode(TopicSync.exitCode(failed)))
        else TopicSync.confirm(admin, topology).flatMap { left =>
          if (left.isEmpty) shell.info(s"topics: ${outcomes.size} changes applied; the cluster matches the topology").as(Exit.Ok)
          else shell.info(s"topics: applied, but the cluster still differs: ${left.changes.map(ch => s"${ch.topic} ${ch.detail}").mkString("; ")}")
            .as(Exit.Difference)
        })
    }

  /** Apply says each step as it is taken (the plan before the changes, each change's outcome): its report is the exit code. */
  private val applyCmd = Job.Sub("apply",
    "Create topics, add partitions and set configs so the cluster matches the topology; never deletes unless told.",
    (
      common,
      deleteUnlisted,
      Opts.flag("yes", "Confirm --delete-unlisted.").orFalse,
      Opts.flag("dry-run", "Print the plan only.").orFalse
    ).tupled.mapValidated { case (c, delete, yes, dry) =>
      if (delete && !yes && !dry) "--delete-unlisted deletes topics: add --yes to confirm (or --dry-run to see which)".invalidNel
      else ApplyOptions(c, delete, dry).validNel
    })((o, shell) => apply(o)(shell), (_, code: ExitCode) => Shown.exit(code))

  val job: Job.Of = Job.of(
    "topics",
    "Topics as code: plan (exit 1 when changes are pending) and apply the topology's topics; list and describe what the cluster has.",
    "bankops topics describe commands --fail-under-replicated",
  )(planCmd.chosen, applyCmd.chosen, TopicsReading.listCmd.chosen, TopicsReading.describeCmd.chosen)
}

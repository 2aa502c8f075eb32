package bankops.jobs.topics

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Exit, Job, OutputFormat, Rendered, Shell, Shown, Verdict}
import bankops.services.config.Connections
import bankops.services.contracts.{Topology, TopologyChoice}
import bankops.services.plan.{Outcome, TopicAdmin, TopicPlan, TopicSync}

/** `bankops topics plan|apply`: the topology's topics on the cluster, as code; `list|describe` in [[TopicsReading]]. */
object TopicsCommand {

  private val common = TopicsFlags.common

  private val deleteUnlisted = Opts.flag("delete-unlisted", "Also delete topics the topology does not list (never names starting with '_').").orFalse

  private def prepared[A](c: TopicsFlags, shell: Shell)(f: (Topology, TopicAdmin) => IO[A]): IO[A] =
    for {
      topology <- TopologyChoice.load(c.topology, shell)
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
      if (r.refused.nonEmpty) Exit.of(TopicSync.failure(r.refused)) else Exit.differsIf(!r.plan.isEmpty))

  private val planCmd = Job.Sub("plan", "Compare the topology with the cluster and print what apply would do; exit 1 when changes are pending.",
    (common, deleteUnlisted).mapN(PlanOptions.apply))(planned, renderPlan)

  /** What apply found and did: the plan, the changes the broker refused (asked without making them), each change's
    * outcome, and what still differs when the cluster is asked again (None: not asked, a change failed).
    */
  final case class ApplyReport(plan: TopicPlan, dryRun: Boolean, refused: List[Outcome] = Nil, outcomes: List[Outcome] = Nil,
                               left: Option[TopicPlan] = None) {
    /** Past the gate: something pending and not only shown. */
    def changes: Boolean = !dryRun && !plan.isEmpty

    lazy val verdict: Verdict = {
      val failed = outcomes.filterNot(_.ok)
      if (!changes) Verdict.Unchanged(pending = !plan.isEmpty)
      else if (refused.nonEmpty)
        Verdict.Refused(refused.map(_.refusal), s"topics: the broker refused ${refused.size} of ${plan.changes.size} changes; nothing was changed",
          TopicSync.failure(refused))
      else if (failed.nonEmpty)
        Verdict.Stopped(
          s"topics: ${outcomes.size - failed.size} of ${outcomes.size} changes applied; failed on " +
            failed.map(_.change.topic).distinct.mkString(", "), TopicSync.failure(failed))
      else left.filterNot(_.isEmpty).fold[Verdict](
        Verdict.Applied(s"topics: ${outcomes.size} changes applied; the cluster matches the topology", matches = true))(l =>
        Verdict.Applied(s"topics: applied, but the cluster still differs: ${l.changes.map(ch => s"${ch.topic} ${ch.detail}").mkString("; ")}",
          matches = false))
    }
  }

  /** Apply shows the plan before the changes and each change as it is made; how it ended is left to [[renderApply]]. */
  private def applied(o: ApplyOptions, shell: Shell): IO[ApplyReport] = {
    val format = OutputFormat.resolve(o.common.output, shell)
    prepared(o.common, shell) { (topology, admin) =>
      TopicSync.plan(admin, topology, o.deleteUnlisted).map(ApplyReport(_, o.dryRun)).flatMap { report =>
        if (!report.changes) IO.pure(report)
        else Rendered.show(TopicSync.rendered(report.plan), OutputFormat.Table, shell).whenA(format == OutputFormat.Table) >>
          TopicSync.refusals(admin, report.plan).flatMap {
            case Nil =>
              admin.execute(report.plan, validateOnly = false).flatTap(o => Rendered.show(TopicSync.rendered(o), format, shell)).flatMap {
                outcomes =>
                  if (!outcomes.forall(_.ok)) IO.pure(report.copy(outcomes = outcomes))
                  else TopicSync.confirm(admin, topology).map(left => report.copy(outcomes = outcomes, left = Some(left)))
              }
            case refused => IO.pure(report.copy(refused = refused))
          }
      }
    }
  }

  /** A plan not acted on is the result (in the format asked for); otherwise what is left is how the apply ended. */
  private def renderApply(o: ApplyOptions, r: ApplyReport): Shown =
    Shown(o.common.output, TopicSync.rendered(r.plan).when(!r.changes) ++ r.verdict.rendered, r.verdict.code)

  /** Apply says each step as it is taken (the plan before the changes, each change's outcome), then how it ended. */
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
    })(applied, renderApply)

  val job: Job.Of = Job.of(
    "topics",
    "Topics as code: plan (exit 1 when changes are pending) and apply the topology's topics; list and describe what the cluster has.",
    "bankops topics describe commands --fail-under-replicated",
  )(planCmd.chosen, applyCmd.chosen, TopicsReading.listCmd.chosen, TopicsReading.describeCmd.chosen)
}

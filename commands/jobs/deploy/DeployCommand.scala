package bankops.jobs.deploy

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Exit, Failure, Job, OutputFormat, Shell, StepSummary}
import bankops.services.plan.{Outcome, SchemaFlow, SchemaPlan, SchemaSync, TopicPlan, TopicSync}

/** `bankops plan` / `bankops apply`: topics and schemas as one plan, behind one gate —
  * an incompatible schema or a topic change the broker refuses means nothing at all changes.
  */
object DeployCommand {

  private def both[A](c: SchemaFlow.Common, level: Option[String], shell: Shell)(
      f: (bankops.services.plan.TopicAdmin, bankops.services.contracts.Topology, TopicPlan, SchemaSync,
          List[bankops.services.contracts.DesiredSubject], SchemaPlan) => IO[A]
  ): IO[A] =
    SchemaFlow.preparedWith(c, shell) { (topology, desired, sync, settings) =>
      TopicSync.session(settings.kafka, c.timeout) { admin =>
        (TopicSync.plan(admin, topology, deleteUnlisted = false), sync.plan(desired, level)).tupled.flatMap { case (tp, sp) =>
          f(admin, topology, tp, sync, desired, sp)
        }
      }
    }

  private def print(tp: TopicPlan, sp: SchemaPlan, format: OutputFormat, shell: Shell): IO[Unit] =
    TopicSync.printPlan(tp, format, shell) >> SchemaFlow.printPlan(sp, format, shell)

  private val gateOnly: Opts[Boolean] =
    Opts.flag("gate",
      "Exit 1 only when apply's gate would refuse: an incompatible schema or a topic change the broker refuses " +
        "(asked without making it). Pending changes alone exit 0: the check for a pull request.").orFalse

  /** What a plan found: topic changes, subjects' statuses, the changes the broker would refuse. */
  final case class PlanReport(topics: TopicPlan, schemas: SchemaPlan, refused: List[Outcome]) {
    /** 1 for anything pending (with `gate`, only for what apply would refuse); a refusal's own code when it has one. */
    def code(gate: Boolean): ExitCode =
      if (refused.nonEmpty) ExitCode(TopicSync.exitCode(refused))
      else if (schemas.incompatible.nonEmpty) Exit.Difference
      else if (gate || (topics.isEmpty && schemas.isEmpty)) Exit.Ok
      else Exit.Difference
  }

  /** `plan`, for the CLI and for callers in this process: the plan is printed to `shell` in the format `c` asks for. */
  def planAll(c: SchemaFlow.Common, level: Option[String], shell: Shell): IO[PlanReport] =
    both(c, level, shell) { (admin, _, tp, _, _, sp) =>
      for {
        // Asked without --gate too: a change apply would have refused (an unknown config key) is not merely pending.
        refused <- if (!tp.isEmpty) TopicSync.refusals(admin, tp) else IO.pure(Nil)
        _ <- print(tp, sp, OutputFormat.resolve(c.output, shell), shell)
        _ <- refused.traverse_(o => shell.info(o.refusal))
        _ <- StepSummary.write(shell, DeploySummary.plan(tp, sp, refused))
      } yield PlanReport(tp, sp, refused)
    }

  val plan: Job = Job(
    "plan",
    "Topics and schemas together: what apply would do; exit 1 when anything is pending or incompatible (--gate: only when apply would be refused).",
    "bankops plan --topology schemas/topology.json",
    (SchemaFlow.common, SchemaFlow.levelOpt, gateOnly).mapN((c, level, gate) => (shell: Shell) => planAll(c, level, shell).map(_.code(gate)))
  )

  /** What an apply did: the plan it started from, what the gate refused, each topic change's outcome, its exit code. */
  final case class ApplyReport(topics: TopicPlan, schemas: SchemaPlan, refused: List[Outcome], outcomes: List[Outcome], code: ExitCode) {
    def changed: Boolean = !topics.isEmpty || !schemas.isEmpty
    def headline: String =
      if (!changed) "no changes"
      else s"${topics.changes.size} topic changes, ${schemas.pending.size} subjects registered or changed"
  }

  /** `apply`, for the CLI and for callers in this process (the sandbox's provisioning): the plan, the gate and the
    * changes are printed to `shell` as they happen, in the output format `c` asks for.
    */
  def applyAll(c: SchemaFlow.Common, level: Option[String], shell: Shell): IO[ApplyReport] = {
    val format = OutputFormat.resolve(c.output, shell)
    both(c, level, shell) { (admin, topology, tp, sync, desired, sp) =>
      def report(refused: List[Outcome], outcomes: List[Outcome])(code: ExitCode): IO[ApplyReport] =
        StepSummary.write(shell, DeploySummary.apply(tp, sp, refused, outcomes, code.code)).as(ApplyReport(tp, sp, refused, outcomes, code))
      if (tp.isEmpty && sp.isEmpty) print(tp, sp, format, shell) >> shell.info("apply: no changes") >> report(Nil, Nil)(Exit.Ok)
      else TopicSync.refusals(admin, tp).flatMap { refused =>
        val gate = refused.map(_.refusal) ++
          sp.incompatible.map(p => s"incompatible: ${p.desired.subject}: ${p.detail}")
        if (gate.nonEmpty)
          print(tp, sp, format, shell) >> gate.traverse_(shell.info) >>
            shell.info("apply: the gate failed; nothing was changed, neither topics nor schemas") >>
            report(refused, Nil)(ExitCode(if (refused.nonEmpty) TopicSync.exitCode(refused) else Failure.ExitDifference))
        else for {
          outcomes <- admin.execute(tp, validateOnly = false)
          _ <- TopicSync.printOutcomes(outcomes, format, shell)
          failed = outcomes.filterNot(_.ok)
          code <- if (failed.nonEmpty)
            shell.info(s"apply: topic changes failed on ${failed.map(_.change.topic).distinct.mkString(", ")}; schemas not registered")
              .as(ExitCode(TopicSync.exitCode(failed)))
          else TopicSync.confirm(admin, topology).flatMap { left =>
            if (!left.isEmpty) shell.info("apply: topics still differ after apply; schemas not registered").as(Exit.Difference)
            else if (sp.isEmpty) shell.info("topics: applied; schemas: no changes").as(ExitCode.Success)
            else SchemaFlow.register(sync, desired, sp, level, format, shell)
          }
          done <- report(Nil, outcomes)(code)
        } yield done
      }
    }
  }

  val apply: Job = Job(
    "apply",
    "Create topics and register schemas in one step, gated: if any schema is incompatible or any topic change refused, nothing changes.",
    "bankops apply --compatibility BACKWARD",
    (SchemaFlow.common, SchemaFlow.levelOpt).mapN((c, level) => (shell: Shell) => applyAll(c, level, shell).map(_.code))
  )
}

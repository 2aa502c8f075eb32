package bankops.jobs.deploy

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Exit, Failure, Job, OutputFormat, Rendered, Shell, Shown, StepSummary}
import bankops.services.config.ClientIdentity
import bankops.services.contracts.{DesiredSubject, Topology}
import bankops.services.kafka.KafkaClients
import bankops.services.plan.{
  AccessPlan, AccessSync, AccessWarnings, AclAdmin, Outcome, SchemaFlow, SchemaPlan, SchemaSync, TopicAdmin, TopicPlan, TopicSync
}

/** `bankops plan` / `bankops apply`: topics, ACLs, SCRAM users and schemas as one plan, behind one gate —
  * an incompatible schema, a topic change the broker refuses, a password that cannot be read or ACLs on a cluster
  * without an authorizer mean nothing at all changes. Apply's order: topics, then ACLs and users (so a service finds
  * its access once its topics exist), then schemas (registered last, as before: a new contract only once all else is in place).
  */
object DeployCommand {

  /** One admin session for topics and access; `access` is [[AccessPlan.unmanaged]] when the topology declares none. */
  private final case class Session(topics: TopicAdmin, acls: AclAdmin, sync: SchemaSync, topology: Topology, desired: List[DesiredSubject],
                                   tp: TopicPlan, sp: SchemaPlan, access: AccessPlan, passwords: Map[String, String])

  private def session[A](c: SchemaFlow.Common, level: Option[String], deleteUnlisted: Boolean, strict: Boolean, shell: Shell)(
      f: Session => IO[A]
  ): IO[A] =
    SchemaFlow.preparedWith(c, shell) { (topology, desired, sync, settings) =>
      // Said once, before the plan; with --strict the plan also refuses them (nothing changes).
      IO.blocking(AccessWarnings.of(topology)).flatMap(_.traverse_(w => shell.warn(if (strict) s"$w (refused: --strict)" else w))) >>
        KafkaClients.withAdmin(settings.kafka, c.timeout) { admin =>
          val identity = ClientIdentity.describe(settings.kafka)
          val (topics, acls) = (new TopicAdmin(admin, identity), new AclAdmin(admin, identity))
          (TopicSync.plan(topics, topology, deleteUnlisted = false), sync.plan(desired, level),
            AccessSync.plan(acls, topology, deleteUnlisted, shell.env, strict)).tupled.flatMap { case (tp, sp, (ap, passwords)) =>
            f(Session(topics, acls, sync, topology, desired, tp, sp, ap, passwords))
          }
        }
    }

  private def print(s: Session, format: OutputFormat, shell: Shell): IO[Unit] =
    Rendered.show(TopicSync.rendered(s.tp) ++ AccessSync.rendered(s.access) ++ SchemaFlow.rendered(s.sp), format, shell)

  private val gateOnly: Opts[Boolean] =
    Opts.flag("gate",
      "Exit 1 only when apply's gate would refuse: an incompatible schema, a topic change the broker refuses, a password " +
        "that cannot be read, ACLs on a cluster without an authorizer (asked without making it). Pending changes alone exit 0: " +
        "the check for a pull request.").orFalse

  private val deleteUnlisted: Opts[Boolean] =
    Opts.flag("delete-unlisted",
      "Also delete ACLs and SCRAM users the topology does not list (with access/users declared; topics: topics apply --delete-unlisted).")
      .orFalse

  private val strictAccess: Opts[Boolean] =
    Opts.flag("strict",
      "Refuse the access-as-code warnings (a grant to User:*, a '*' in a prefix, a SCRAM password file others can read or " +
        "outside the topology's folder) instead of only printing them.").orFalse

  /** What a plan found: topic changes, ACLs and users, subjects' statuses, the changes the gate would refuse. */
  final case class PlanReport(topics: TopicPlan, schemas: SchemaPlan, refused: List[Outcome], access: AccessPlan = AccessPlan.unmanaged) {
    /** 1 for anything pending (with `gate`, only for what apply would refuse); a refusal's own code when it has one. */
    def code(gate: Boolean): ExitCode =
      if (refused.nonEmpty) ExitCode(TopicSync.exitCode(refused))
      else if (access.refused) ExitCode(if (access.notAuthorized) Failure.ExitNotAuthorized else Failure.ExitBadInput)
      else if (schemas.incompatible.nonEmpty) Exit.Difference
      else if (gate || (topics.isEmpty && schemas.isEmpty && access.isEmpty)) Exit.Ok
      else Exit.Difference
  }

  /** `plan`'s options: the topology and registry, the compatibility level, and which refusals fail it. */
  final case class PlanOptions(common: SchemaFlow.Common, level: Option[String], gate: Boolean, deleteUnlisted: Boolean, strict: Boolean)

  /** `plan`: what apply would do and what its gate would refuse, asked of the cluster and registry; nothing changes. */
  def planAll(o: PlanOptions, shell: Shell): IO[PlanReport] =
    session(o.common, o.level, o.deleteUnlisted, o.strict, shell) { s =>
      // Asked without --gate too: a change apply would have refused (an unknown config key) is not merely pending.
      (if (!s.tp.isEmpty) TopicSync.refusals(s.topics, s.tp) else IO.pure(Nil)).map(PlanReport(s.tp, s.sp, _, s.access))
    }

  /** The one renderer of a plan: its changes, what the gate would refuse, the job summary; exit 1 when pending. */
  def renderPlan(o: PlanOptions, r: PlanReport): Shown =
    Shown(o.common.output,
      TopicSync.rendered(r.topics) ++ AccessSync.rendered(r.access) ++ SchemaFlow.rendered(r.schemas) ++
        Rendered.all((r.refused.map(_.refusal) ++ r.access.refusals).map(Rendered.note)) ++
        Rendered.summary(DeploySummary.plan(r.topics, r.schemas, r.refused, r.access)),
      r.code(o.gate))

  val plan: Job[PlanOptions, PlanReport] = Job(
    "plan",
    "Topics, ACLs, users and schemas together: what apply would do; exit 1 when anything is pending or incompatible " +
      "(--gate: only when apply would be refused).",
    "bankops plan --topology schemas/topology.json",
    (SchemaFlow.common, SchemaFlow.levelOpt, gateOnly, deleteUnlisted, strictAccess).mapN(PlanOptions.apply)
  )(planAll, renderPlan)

  /** What an apply did: the plan it started from, what the gate refused, each topic change's outcome, its exit code. */
  final case class ApplyReport(topics: TopicPlan, schemas: SchemaPlan, refused: List[Outcome], outcomes: List[Outcome], code: ExitCode,
                               access: AccessPlan = AccessPlan.unmanaged) {
    def changed: Boolean = !topics.isEmpty || !schemas.isEmpty || !access.isEmpty
    def headline: String =
      if (!changed) "no changes"
      else s"${topics.changes.size} topic changes, ${if (access.manages) s"${access.changes} ACL/user changes, " else ""}" +
        s"${schemas.pending.size} subjects registered or changed"
  }

  /** `apply`, for the CLI and for callers in this process (the sandbox's provisioning): the plan, the gate and the
    * changes are printed to `shell` as they happen, in the output format `c` asks for.
    */
  def applyAll(c: SchemaFlow.Common, level: Option[String], shell: Shell, deleteUnlisted: Boolean = false, strict: Boolean = false)
      : IO[ApplyReport] = {
    val format = OutputFormat.resolve(c.output, shell)
    session(c, level, deleteUnlisted, strict, shell) { s =>
      val (tp, sp, ap) = (s.tp, s.sp, s.access)
      def report(refused: List[Outcome], outcomes: List[Outcome], accessDone: Boolean = false)(code: ExitCode): IO[ApplyReport] =
        StepSummary.write(shell, DeploySummary.apply(tp, sp, refused, outcomes, code.code, ap, accessDone))
          .as(ApplyReport(tp, sp, refused, outcomes, code, ap))
      if (tp.isEmpty && sp.isEmpty && ap.isEmpty && !ap.refused)
        print(s, format, shell) >> shell.info("apply: no changes") >> report(Nil, Nil)(Exit.Ok)
      else (if (tp.isEmpty) IO.pure(List.empty[Outcome]) else TopicSync.refusals(s.topics, tp)).flatMap { refused =>
        val gate = refused.map(_.refusal) ++ ap.refusals ++ sp.incompatible.map(p => s"incompatible: ${p.desired.subject}: ${p.detail}")
        if (gate.nonEmpty)
          print(s, format, shell) >> gate.traverse_(shell.info) >>
            shell.info(s"apply: the gate failed; ${DeploySummary.NothingChanged}") >>
            report(refused, Nil)(PlanReport(tp, sp, refused, ap).code(gate = true))
        else for {
          outcomes <- s.topics.execute(tp, validateOnly = false)
          _ <- Rendered.show(TopicSync.rendered(outcomes), format, shell)
          failed = outcomes.filterNot(_.ok)
          // The exit code, and whether the ACLs and users were changed (the summary marks their rows done).
          step <- if (failed.nonEmpty)
            shell.info(s"apply: topic changes failed on ${failed.map(_.change.topic).distinct.mkString(", ")}; " +
              "ACLs, users and schemas not changed").as(ExitCode(TopicSync.exitCode(failed)) -> false)
          else TopicSync.confirm(s.topics, s.topology).flatMap { left =>
            if (!left.isEmpty) shell.info("apply: topics still differ after apply; ACLs, users and schemas not changed").as(Exit.Difference -> false)
            else access(s, deleteUnlisted, format, shell).flatMap {
              case Some(code) => IO.pure(code -> false)
              case None if sp.isEmpty => shell.info("topics and access: applied; schemas: no changes").as(Exit.Ok -> true)
              case None =>
                SchemaFlow.register(s.sync, s.desired, sp, level).flatTap(r => Rendered.show(SchemaFlow.rendered(r), format, shell) >> r.failure)
                  .map(r => Exit.differsIf(!r.complete) -> true)
            }
          }
          done <- report(Nil, outcomes, accessDone = step._2)(step._1)
        } yield done
      }
    }
  }

  /** ACLs and users after the topics: None when they now match the topology, else the exit code that stops the apply. */
  private def access(s: Session, deleteUnlisted: Boolean, format: OutputFormat, shell: Shell): IO[Option[ExitCode]] =
    if (s.access.isEmpty) IO.pure(None)
    else AccessSync.execute(s.acls, s.access, s.passwords).attempt.flatMap {
      case Left(e) =>
        shell.info(s"apply: ACL/user changes failed: ${TopicSync.reason(e)}; schemas not registered").as(Some(ExitCode(AccessSync.exitCode(e))))
      case Right(()) =>
        Rendered.show(AccessSync.renderedDone(s.access), format, shell) >> AccessSync.confirm(s.acls, s.topology, deleteUnlisted, shell.env).flatMap {
          left =>
            if (left.isEmpty) IO.pure(None)
            else shell.info(s"apply: ${left.changes} ACL/user changes still pending after apply; schemas not registered").as(Some(Exit.Difference))
        }
    }

  /** `apply`'s options: the topology and registry, the compatibility level, whether unlisted access goes, --strict. */
  final case class ApplyOptions(common: SchemaFlow.Common, level: Option[String], deleteUnlisted: Boolean, strict: Boolean)

  val apply: Job[ApplyOptions, ApplyReport] = Job(
    "apply",
    "Create topics, ACLs and SCRAM users and register schemas in one step, gated: if any schema is incompatible, any topic " +
      "change refused or any password missing, nothing changes.",
    "bankops apply --compatibility BACKWARD",
    (SchemaFlow.common, SchemaFlow.levelOpt, deleteUnlisted, Opts.flag("yes", "Confirm --delete-unlisted.").orFalse, strictAccess).tupled
      .mapValidated { case (c, level, delete, yes, strict) =>
        if (delete && !yes) "--delete-unlisted deletes ACLs and SCRAM users: add --yes to confirm (or run plan --delete-unlisted to see which)"
          .invalidNel
        else ApplyOptions(c, level, delete, strict).validNel
      }
  )((o, shell) => applyAll(o.common, o.level, shell, o.deleteUnlisted, o.strict), (_, r) => Shown.exit(r.code))
}

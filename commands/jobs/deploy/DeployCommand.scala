package bankops.jobs.deploy

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Exit, Failure, Job, OutputFormat, Rendered, Shell, Shown, Verdict}
import bankops.flags.PlanFlags
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
      ApplyReport.gateFailure(topics, schemas, refused, access).map(Exit.of)
        .getOrElse(Exit.differsIf(!gate && !(topics.isEmpty && schemas.isEmpty && access.isEmpty)))
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
    (PlanFlags.common, PlanFlags.level, gateOnly, deleteUnlisted, strictAccess).mapN(PlanOptions.apply)
  )(planAll, renderPlan)

  /** What an apply found and did, step by step; a step not reached is None. `topicsLeft` and `accessLeft`: the
    * cluster asked again after the changes; `accessFailed`: why the ACL and user changes stopped.
    */
  final case class ApplyReport(topics: TopicPlan, schemas: SchemaPlan, access: AccessPlan, refused: List[Outcome] = Nil,
                               outcomes: List[Outcome] = Nil, topicsLeft: Option[TopicPlan] = None, accessFailed: Option[Throwable] = None,
                               accessLeft: Option[AccessPlan] = None, registration: Option[SchemaFlow.Registration] = None) {
    def changed: Boolean = !topics.isEmpty || !schemas.isEmpty || !access.isEmpty
    def headline: String =
      if (!changed) "no changes"
      else s"${topics.changes.size} topic changes, ${if (access.manages) s"${access.changes} ACL/user changes, " else ""}" +
        s"${schemas.pending.size} subjects registered or changed"
    /** The ACLs and users were changed and, asked again, match (even if a later step failed). */
    def accessDone: Boolean = accessLeft.exists(_.isEmpty)
    lazy val verdict: Verdict = ApplyReport.verdict(this)
  }

  object ApplyReport {
    /** What the gate refuses, by class: a topic change the broker refuses, access that cannot be granted (the
      * authorizer's refusal, else a password that cannot be read or a --strict warning), an incompatible schema.
      */
    def gateFailure(tp: TopicPlan, sp: SchemaPlan, refused: List[Outcome], ap: AccessPlan): Option[Failure.Kind] =
      if (refused.nonEmpty) Some(TopicSync.failure(refused))
      else if (ap.refused) Some(if (ap.notAuthorized) Failure.Kind.NotAuthorized else Failure.Kind.BadInput)
      else if (sp.incompatible.nonEmpty) Some(Failure.Kind.Difference)
      else None

    /** How the apply ended, from its steps alone: the first step that refused, failed or left a difference says it. */
    def verdict(r: ApplyReport): Verdict = {
      val failed = r.outcomes.filterNot(_.ok)
      lazy val gate = r.refused.map(_.refusal) ++ r.access.refusals ++
        r.schemas.incompatible.map(p => s"incompatible: ${p.desired.subject}: ${p.detail}")
      gateFailure(r.topics, r.schemas, r.refused, r.access) match {
        case Some(kind) => Verdict.Refused(gate, s"apply: the gate failed; ${DeploySummary.NothingChanged}", kind)
        case None if !r.changed => Verdict.Unchanged(pending = false, List("apply: no changes"))
        case None if failed.nonEmpty =>
          Verdict.Stopped(
            s"apply: topic changes failed on ${failed.map(_.change.topic).distinct.mkString(", ")}; " +
              "ACLs, users and schemas not changed", TopicSync.failure(failed))
        case None if r.topicsLeft.exists(!_.isEmpty) =>
          Verdict.Applied("apply: topics still differ after apply; ACLs, users and schemas not changed", matches = false)
        case None => (r.accessFailed, r.accessLeft.filterNot(_.isEmpty), r.registration) match {
            case (Some(e), _, _) =>
              Verdict.Stopped(s"apply: ACL/user changes failed: ${TopicSync.reason(e)}; schemas not registered", AccessSync.failure(e))
            case (_, Some(left), _) =>
              Verdict.Applied(s"apply: ${left.changes} ACL/user changes still pending after apply; schemas not registered", matches = false)
            case (_, _, Some(reg)) => Verdict.Applied(reg.line, reg.complete)
            case _ => Verdict.Applied("topics and access: applied; schemas: no changes", matches = true)
          }
      }
    }
  }

  /** `apply`, for the CLI and for callers in this process (the sandbox's provisioning): the plan and each change are
    * printed to `shell` as they happen, in the output format `c` asks for; the report says what happened.
    */
  def applyAll(c: SchemaFlow.Common, level: Option[String], shell: Shell, deleteUnlisted: Boolean = false, strict: Boolean = false)
      : IO[ApplyReport] = {
    val format = OutputFormat.resolve(c.output, shell)
    session(c, level, deleteUnlisted, strict, shell) { s =>
      val planned = ApplyReport(s.tp, s.sp, s.access)
      // The plan is shown when nothing follows it (no changes, or the gate refused); else each change as it is made.
      if (!planned.changed && !s.access.refused) print(s, format, shell).as(planned)
      else (if (s.tp.isEmpty) IO.pure(List.empty[Outcome]) else TopicSync.refusals(s.topics, s.tp)).flatMap { refused =>
        val gated = planned.copy(refused = refused)
        if (ApplyReport.gateFailure(s.tp, s.sp, refused, s.access).isDefined) print(s, format, shell).as(gated)
        else changes(s, gated, deleteUnlisted, level, format, shell)
      }
    }
  }

  /** Past the gate: topics, then (when they match) ACLs and users, then (when those match) schemas; each step shown as
    * it is made, the report growing by what each did.
    */
  private def changes(s: Session, r: ApplyReport, deleteUnlisted: Boolean, level: Option[String], format: OutputFormat, shell: Shell)
      : IO[ApplyReport] =
    s.topics.execute(s.tp, validateOnly = false).flatTap(o => Rendered.show(TopicSync.rendered(o), format, shell)).flatMap { outcomes =>
      if (!outcomes.forall(_.ok)) IO.pure(r.copy(outcomes = outcomes))
      else TopicSync.confirm(s.topics, s.topology).flatMap { left =>
        val topicsDone = r.copy(outcomes = outcomes, topicsLeft = Some(left))
        if (!left.isEmpty) IO.pure(topicsDone)
        else access(s, deleteUnlisted, format, shell).flatMap {
          case Left(e) => IO.pure(topicsDone.copy(accessFailed = Some(e)))
          case Right(accessLeft) =>
            val accessDone = topicsDone.copy(accessLeft = Some(accessLeft))
            if (!accessLeft.isEmpty || s.sp.isEmpty) IO.pure(accessDone)
            else SchemaFlow.register(s.sync, s.desired, s.sp, level)
              .flatTap(reg => Rendered.show(SchemaFlow.rendered(reg), format, shell) >> reg.failure)
              .map(reg => accessDone.copy(registration = Some(reg)))
        }
      }
    }

  /** ACLs and users after the topics: what is still pending when asked again (empty: they match), or why the changes failed. */
  private def access(s: Session, deleteUnlisted: Boolean, format: OutputFormat, shell: Shell): IO[Either[Throwable, AccessPlan]] =
    if (s.access.isEmpty) IO.pure(Right(s.access))
    else AccessSync.execute(s.acls, s.access, s.passwords).attempt.flatMap {
      case Left(e) => IO.pure(Left(e))
      case Right(()) =>
        Rendered.show(AccessSync.renderedDone(s.access), format, shell) >>
          AccessSync.confirm(s.acls, s.topology, deleteUnlisted, shell.env).map(Right(_))
    }

  /** Apply said each step as it took it; what is left to show is how it ended, and the job summary. */
  def renderApply(o: ApplyOptions, r: ApplyReport): Shown =
    Shown(o.common.output,
      r.verdict.rendered ++ Rendered.summary(DeploySummary.apply(r.topics, r.schemas, r.refused, r.outcomes, r.verdict.code.code, r.access,
          r.accessDone)),
      r.verdict.code)

  /** `apply`'s options: the topology and registry, the compatibility level, whether unlisted access goes, --strict. */
  final case class ApplyOptions(common: SchemaFlow.Common, level: Option[String], deleteUnlisted: Boolean, strict: Boolean)

  val apply: Job[ApplyOptions, ApplyReport] = Job(
    "apply",
    "Create topics, ACLs and SCRAM users and register schemas in one step, gated: if any schema is incompatible, any topic " +
      "change refused or any password missing, nothing changes.",
    "bankops apply --compatibility BACKWARD",
    (PlanFlags.common, PlanFlags.level, deleteUnlisted, Opts.flag("yes", "Confirm --delete-unlisted.").orFalse, strictAccess).tupled
      .mapValidated { case (c, level, delete, yes, strict) =>
        if (delete && !yes) "--delete-unlisted deletes ACLs and SCRAM users: add --yes to confirm (or run plan --delete-unlisted to see which)"
          .invalidNel
        else ApplyOptions(c, level, delete, strict).validNel
      }
  )((o, shell) => applyAll(o.common, o.level, shell, o.deleteUnlisted, o.strict), renderApply)
}

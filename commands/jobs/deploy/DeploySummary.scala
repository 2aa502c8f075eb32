package bankops.jobs.deploy

import bankops.base.StepSummary
import bankops.services.plan.{AccessPlan, Outcome, SchemaPlan, TopicPlan, TopicSync}

/** `plan` and `apply` in the job summary: the topic changes, the ACLs and users (when the topology declares them) and
  * the subjects, one table each, and what the gate said.
  */
private[deploy] object DeploySummary {

  val NothingChanged = "nothing was changed, neither topics nor schemas (nor ACLs or users)"

  private def subjects(sp: SchemaPlan, registered: Boolean): StepSummary.Table =
    StepSummary.Table(List("subject", "status", "detail"),
      sp.subjects.map(p => List(StepSummary.code(p.desired.subject), if (registered && p.pending) "registered" else p.status.name, p.detail)),
      title = Some("subjects"))

  /** The ACL and user tables, only for what the topology manages; `done`: the changes were made. */
  private def access(ap: AccessPlan, done: Boolean): List[StepSummary.Table] = {
    def result(action: String) = if (action == AccessPlan.Unlisted || action == AccessPlan.Present) "" else if (done) "done" else "not made"
    val acls = StepSummary.Table(List("acl", "principal", "operation", "resource", "result"),
      ap.acls.map(c =>
        List(c.action, StepSummary.code(c.acl.principal), s"${c.acl.permission} ${c.acl.operation}", StepSummary.code(c.acl.resource),
          result(c.action))),
      title = Some("acls"))
    val users = StepSummary.Table(List("user", "name", "mechanism", "detail", "result"),
      ap.users.map(u => List(u.action, StepSummary.code(u.user), u.mechanism, u.detail, result(u.action))), title = Some("users"))
    (if (ap.managesAcls) List(acls) else Nil) ++ (if (ap.managesUsers) List(users) else Nil)
  }

  private def counts(tp: TopicPlan, sp: SchemaPlan, ap: AccessPlan): List[(String, String)] =
    List("topic changes" -> tp.changes.size.toString) ++
      (if (ap.manages) List("ACL/user changes" -> ap.changes.toString, "ACLs/users unlisted (drift)" -> ap.drift.toString) else Nil) ++ List(
        "subjects pending" -> sp.pending.size.toString,
        "subjects incompatible" -> sp.incompatible.size.toString,
        "subjects unchanged" -> (sp.subjects.size - sp.pending.size).toString)

  private def gateNotes(refused: List[Outcome], sp: SchemaPlan, ap: AccessPlan): List[String] =
    refused.map(o => s"refused: ${StepSummary.code(o.change.topic)} ${o.change.action}: ${TopicSync.reason(o.error.get)}") ++
      ap.refusals ++ sp.incompatible.map(p => s"incompatible: ${StepSummary.code(p.desired.subject)}: ${p.detail}")

  /** What `apply` would do; the gate's refusals (topic changes the broker refuses, unreadable passwords, incompatible schemas) named. */
  def plan(tp: TopicPlan, sp: SchemaPlan, refused: List[Outcome], ap: AccessPlan = AccessPlan.unmanaged): StepSummary = {
    val blocked = refused.nonEmpty || sp.incompatible.nonEmpty || ap.refused
    val empty = tp.isEmpty && sp.isEmpty && ap.isEmpty
    val headline =
      if (blocked)
        s"the gate refuses: ${(refused.map(_.change.topic) ++ sp.incompatible.map(_.desired.subject) ++ (if (ap.refused) List("access") else Nil))
            .distinct.mkString(", ")}"
      else if (empty) "no changes, the cluster and the registry match the topology"
      else s"${tp.changes.size + ap.changes + sp.pending.size} changes pending, none refused"
    StepSummary("plan", headline,
      if (blocked) StepSummary.Outcome.Failed else if (empty) StepSummary.Outcome.Ok else StepSummary.Outcome.Attention,
      facts = counts(tp, sp, ap),
      tables = List(StepSummary.Table(List("topic", "action", "detail"), tp.changes.map(c => List(c.topic, c.action, c.detail)),
          title = Some("topics"))) ++ access(ap, done = false) :+ subjects(sp, registered = false),
      notes = gateNotes(refused, sp, ap) ++ tp.warnings.map(w => s"warning: ${w.message}"))
  }

  /** What `apply` changed (exit 0), or why it changed nothing or stopped; `accessDone`: the ACL and user changes were made
    * even if a later step (schemas) failed.
    */
  def apply(tp: TopicPlan, sp: SchemaPlan, refused: List[Outcome], outcomes: List[Outcome], code: Int, ap: AccessPlan = AccessPlan.unmanaged,
            accessDone: Boolean = false): StepSummary = {
    val gateFailed = refused.nonEmpty || sp.incompatible.nonEmpty || ap.refused
    val headline =
      if (tp.isEmpty && sp.isEmpty && ap.isEmpty && !gateFailed) "no changes"
      else if (gateFailed) s"the gate failed; $NothingChanged"
      else if (code == 0) s"${outcomes.size} topic changes made, ${if (ap.manages) s"${ap.changes} ACL/user changes made, " else ""}" +
        s"${sp.pending.size} subjects registered or set"
      else "stopped part way: see the tables"
    val topicRows =
      if (outcomes.nonEmpty)
        outcomes.map(o => List(o.change.topic, o.change.action, o.change.detail, o.error.fold("done")(e => s"FAILED: ${TopicSync.reason(e)}")))
      else tp.changes.map(c => List(c.topic, c.action, c.detail, "not made"))
    StepSummary("apply", headline, if (code == 0) StepSummary.Outcome.Ok else StepSummary.Outcome.Failed,
      facts = counts(tp, sp, ap),
      tables = List(StepSummary.Table(List("topic", "action", "detail", "result"), topicRows, title = Some("topics"))) ++
        access(ap, done = accessDone || code == 0) :+ subjects(sp, registered = code == 0),
      notes = gateNotes(refused, sp, ap) ++ tp.warnings.map(w => s"warning: ${w.message}"))
  }
}

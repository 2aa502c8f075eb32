package bankops.jobs.deploy

import bankops.base.StepSummary
import bankops.services.plan.{Outcome, SchemaPlan, TopicPlan, TopicSync}

/** `plan` and `apply` in the job summary: the topic changes and the subjects, one table each, and what the gate said. */
object DeploySummary {

  private def subjects(sp: SchemaPlan, registered: Boolean): StepSummary.Table =
    StepSummary.Table(List("subject", "status", "detail"),
      sp.subjects.map(p => List(StepSummary.code(p.desired.subject), if (registered && p.pending) "registered" else p.status.name, p.detail)),
      title = Some("subjects"))

  private def counts(tp: TopicPlan, sp: SchemaPlan): List[(String, String)] = List(
    "topic changes" -> tp.changes.size.toString,
    "subjects pending" -> sp.pending.size.toString,
    "subjects incompatible" -> sp.incompatible.size.toString,
    "subjects unchanged" -> (sp.subjects.size - sp.pending.size).toString)

  private def gateNotes(refused: List[Outcome], sp: SchemaPlan): List[String] =
    refused.map(o => s"refused: ${StepSummary.code(o.change.topic)} ${o.change.action}: ${TopicSync.reason(o.error.get)}") ++
      sp.incompatible.map(p => s"incompatible: ${StepSummary.code(p.desired.subject)}: ${p.detail}")

  /** What `apply` would do; the gate's refusals (topic changes the broker refuses, incompatible schemas) named. */
  def plan(tp: TopicPlan, sp: SchemaPlan, refused: List[Outcome]): StepSummary = {
    val blocked = refused.nonEmpty || sp.incompatible.nonEmpty
    val headline =
      if (blocked) s"the gate refuses: ${(refused.map(_.change.topic) ++ sp.incompatible.map(_.desired.subject)).distinct.mkString(", ")}"
      else if (tp.isEmpty && sp.isEmpty) "no changes, the cluster and the registry match the topology"
      else s"${tp.changes.size + sp.pending.size} changes pending, none refused"
    StepSummary("plan", headline,
      if (blocked) StepSummary.Outcome.Failed else if (tp.isEmpty && sp.isEmpty) StepSummary.Outcome.Ok else StepSummary.Outcome.Attention,
      facts = counts(tp, sp),
      tables = List(StepSummary.Table(List("topic", "action", "detail"), tp.changes.map(c => List(c.topic, c.action, c.detail)),
          title = Some("topics")),
        subjects(sp, registered = false)),
      notes = gateNotes(refused, sp) ++ tp.warnings.map(w => s"warning: ${w.message}"))
  }

  /** What `apply` changed (exit 0), or why it changed nothing or stopped. */
  def apply(tp: TopicPlan, sp: SchemaPlan, refused: List[Outcome], outcomes: List[Outcome], code: Int): StepSummary = {
    val gateFailed = refused.nonEmpty || sp.incompatible.nonEmpty
    val headline =
      if (tp.isEmpty && sp.isEmpty) "no changes"
      else if (gateFailed) "the gate failed; nothing was changed, neither topics nor schemas"
      else if (code == 0) s"${outcomes.size} topic changes made, ${sp.pending.size} subjects registered or set"
      else "stopped part way: see the tables"
    val topicRows =
      if (outcomes.nonEmpty)
        outcomes.map(o => List(o.change.topic, o.change.action, o.change.detail, o.error.fold("done")(e => s"FAILED: ${TopicSync.reason(e)}")))
      else tp.changes.map(c => List(c.topic, c.action, c.detail, "not made"))
    StepSummary("apply", headline, if (code == 0) StepSummary.Outcome.Ok else StepSummary.Outcome.Failed,
      facts = counts(tp, sp),
      tables = List(StepSummary.Table(List("topic", "action", "detail", "result"), topicRows, title = Some("topics")),
        subjects(sp, registered = code == 0)),
      notes = gateNotes(refused, sp) ++ tp.warnings.map(w => s"warning: ${w.message}"))
  }
}

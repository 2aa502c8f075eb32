package bankops.jobs.schemas

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Exit, Failure, Job, OutputFormat, Rendered, Shell, Shown, Verdict}
import bankops.flags.TopicFlags
import bankops.flags.PlanFlags
import bankops.services.contracts.{DesiredSubjects, RecordKey, SchemaFiles, TopicRecord, TopicSpec}
import bankops.services.plan.{SchemaFlow, SchemaPlan}

/** `bankops schemas plan|register|check`: the `.avsc` contracts in the registry, one subject per topic and record;
  * `versions|show|diff` (in [[HistoryCommands]]): a subject's history.
  */
object SchemasCommand {

  final case class PlanOptions(common: SchemaFlow.Common, level: Option[String])

  private val planCmd = Job.Sub("plan",
    "Per subject: new, unchanged, new-version (compatible) or incompatible (with the reason); exit 1 when anything is pending.",
    (PlanFlags.common, PlanFlags.level).mapN(PlanOptions.apply))(
    (o, shell) => SchemaFlow.prepared(o.common, shell)((_, desired, sync) => sync.plan(desired, o.level)),
    (o, p: SchemaPlan) => Shown(o.common.output, SchemaFlow.rendered(p), Exit.differsIf(!p.isEmpty)))

  final case class RegisterOptions(common: SchemaFlow.Common, level: Option[String], dryRun: Boolean)

  /** What register found and did: the plan, and the registration when the gate let it through. */
  final case class RegisterReport(plan: SchemaPlan, dryRun: Boolean, registration: Option[SchemaFlow.Registration] = None) {
    /** Past the gate: something pending, nothing incompatible, and not only shown. */
    def registers: Boolean = !dryRun && !plan.isEmpty && plan.incompatible.isEmpty
    lazy val verdict: Verdict = registration match {
      case Some(r) => Verdict.Applied(r.line, r.complete)
      case None if !dryRun && plan.incompatible.nonEmpty => Verdict.Refused(Nil, SchemaFlow.incompatibleMessage(plan), Failure.Kind.Difference)
      case None => Verdict.Unchanged(pending = !plan.isEmpty)
    }
  }

  /** Register shows the plan or what it registered as it goes; how it ended is left to [[renderRegister]]. */
  private def register(o: RegisterOptions, shell: Shell): IO[RegisterReport] = {
    val format = OutputFormat.resolve(o.common.output, shell)
    SchemaFlow.prepared(o.common, shell) { (_, desired, sync) =>
      sync.plan(desired, o.level).flatMap { plan =>
        val report = RegisterReport(plan, o.dryRun)
        // The plan is shown when nothing follows it; else each subject as it is registered.
        if (!report.registers) Rendered.show(SchemaFlow.rendered(plan), format, shell).as(report)
        else SchemaFlow.register(sync, desired, plan, o.level)
          .flatTap(r => Rendered.show(SchemaFlow.rendered(r), format, shell) >> r.failure)
          .map(r => report.copy(registration = Some(r)))
      }
    }
  }

  private def renderRegister(o: RegisterOptions, r: RegisterReport): Shown = Shown(o.common.output, r.verdict.rendered, r.verdict.code)

  private val registerCmd = Job.Sub("register", "Test every subject's compatibility, then register; registers nothing when any is incompatible.",
    (PlanFlags.common, PlanFlags.level, Opts.flag("dry-run", "Print the plan only.").orFalse).mapN(RegisterOptions.apply))(
    register, renderRegister)

  final case class CheckOptions(common: SchemaFlow.Common, file: os.Path, topic: String)

  /** The candidate's subject only, planned against the registry. */
  private def check(o: CheckOptions, shell: Shell): IO[SchemaPlan] =
    SchemaFlow.prepared(o.common, shell) { (topology, _, sync) =>
      IO.blocking(SchemaFiles.loadOne(o.file, topology.schemaFiles)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_)))).flatMap {
        candidate =>
          val strategy = o.common.strategy.getOrElse(topology.subjectNameStrategy)
          // The candidate alone on its topic, with the subjects of whatever it imports.
          val alone = topology.copy(topics = List(TopicSpec(o.topic, 1, 1, Map.empty, List(TopicRecord(candidate, RecordKey.Time)))),
            schemaFiles = topology.schemaFiles + (candidate.fullName -> candidate))
          val subject = strategy.subject(o.topic, candidate.fullName)
          DesiredSubjects.load(alone, Some(strategy)).flatMap(sync.plan(_, None)).map(plan =>
            SchemaPlan(plan.subjects.filter(_.desired.subject == subject)))
      }
    }

  private val checkCmd = Job.Sub("check", "Is one candidate .avsc compatible with its subject on a topic? For CI of schema changes; exit 1 when not.",
    (PlanFlags.common, Opts.argument[String]("FILE.avsc").map(os.Path(_, os.pwd)), TopicFlags.option("topic", "The topic the record goes on."))
      .mapN(CheckOptions.apply))(check,
    (o, mine: SchemaPlan) => Shown(o.common.output, SchemaFlow.rendered(mine), Exit.differsIf(mine.incompatible.nonEmpty)))

  val job: Job.Of = Job.of(
    "schemas",
    "Schemas as code: plan, register (compatibility-gated) and check the .avsc contracts under TopicRecordNameStrategy subjects; "
      + "a subject's history: versions, show, diff.",
    "bankops schemas register --compatibility BACKWARD"
  )(planCmd.chosen, registerCmd.chosen, checkCmd.chosen, HistoryCommands.versions.chosen, HistoryCommands.show.chosen, HistoryCommands.diff.chosen)
}

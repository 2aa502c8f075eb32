package bankops.jobs.schemas

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Exit, Failure, Job, OutputFormat, Rendered, Shell}
import bankops.services.contracts.{DesiredSubjects, RecordKey, SchemaFiles, TopicRecord, TopicSpec}
import bankops.services.kafka.TopicName
import bankops.services.plan.{SchemaFlow, SchemaPlan}

/** `bankops schemas plan|register|check`: the `.avsc` contracts in the registry, one subject per topic and record;
  * `versions|show|diff` (in [[HistoryCommands]]): a subject's history.
  */
object SchemasCommand {

  private val planCmd = Opts.subcommand("plan",
    "Per subject: new, unchanged, new-version (compatible) or incompatible (with the reason); exit 1 when anything is pending.")(
    (SchemaFlow.common, SchemaFlow.levelOpt).mapN { (c, level) => (shell: Shell) =>
      SchemaFlow.prepared(c, shell)((_, desired, sync) => sync.plan(desired, level))
        .flatTap(p => Rendered.show(SchemaFlow.rendered(p), OutputFormat.resolve(c.output, shell), shell)).map(p => Exit.differsIf(!p.isEmpty))
    }
  )

  private val registerCmd =
    Opts.subcommand("register", "Test every subject's compatibility, then register; registers nothing when any is incompatible.")(
      (SchemaFlow.common, SchemaFlow.levelOpt, Opts.flag("dry-run", "Print the plan only.").orFalse).mapN { (c, level, dry) => (shell: Shell) =>
        val format = OutputFormat.resolve(c.output, shell)
        SchemaFlow.prepared(c, shell) { (_, desired, sync) =>
          sync.plan(desired, level).flatMap { plan =>
            val shown = Rendered.show(SchemaFlow.rendered(plan), format, shell)
            if (dry || plan.isEmpty) shown.as(Exit.differsIf(dry && !plan.isEmpty))
            else if (plan.incompatible.nonEmpty) shown >> shell.info(SchemaFlow.incompatibleMessage(plan)).as(Exit.Difference)
            else SchemaFlow.register(sync, desired, plan, level).flatTap(r => Rendered.show(SchemaFlow.rendered(r), format, shell) >> r.failure)
              .map(r => Exit.differsIf(!r.complete))
          }
        }
      }
    )

  private val checkCmd =
    Opts.subcommand("check", "Is one candidate .avsc compatible with its subject on a topic? For CI of schema changes; exit 1 when not.")(
      (SchemaFlow.common, Opts.argument[String]("FILE.avsc").map(os.Path(_, os.pwd)), TopicName.option("topic", "The topic the record goes on."))
        .mapN { (c, file, topic) => (shell: Shell) =>
          SchemaFlow.prepared(c, shell) { (topology, _, sync) =>
            IO.blocking(SchemaFiles.loadOne(file, topology.schemaFiles)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_)))).flatMap {
              candidate =>
                val strategy = c.strategy.getOrElse(topology.subjectNameStrategy)
                // The candidate alone on its topic, with the subjects of whatever it imports.
                val alone = topology.copy(topics = List(TopicSpec(topic, 1, 1, Map.empty, List(TopicRecord(candidate, RecordKey.Time)))),
                  schemaFiles = topology.schemaFiles + (candidate.fullName -> candidate))
                val subject = strategy.subject(topic, candidate.fullName)
                DesiredSubjects.load(alone, Some(strategy)).flatMap(sync.plan(_, None))
                  .flatMap { plan =>
                    val mine = SchemaPlan(plan.subjects.filter(_.desired.subject == subject))
                    Rendered.show(SchemaFlow.rendered(mine), OutputFormat.resolve(c.output, shell), shell).as(
                      Exit.differsIf(mine.incompatible.nonEmpty))
                  }
            }
          }
        }
    )

  val job: Job.Actions = Job.actions(
    "schemas",
    "Schemas as code: plan, register (compatibility-gated) and check the .avsc contracts under TopicRecordNameStrategy subjects; "
      + "a subject's history: versions, show, diff.",
    "bankops schemas register --compatibility BACKWARD",
    planCmd orElse registerCmd orElse checkCmd orElse HistoryCommands.versions orElse HistoryCommands.show orElse HistoryCommands.diff
  )
}

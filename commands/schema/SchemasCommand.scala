package bankops.schema

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.syntax._

import scala.concurrent.duration.FiniteDuration

import bankops.cli.{Failure, Job, OutputFormat, Shell, Table, TimeoutOpt}
import bankops.config.{ConnectionFlags, ConnectionSettings, Connections}
import bankops.registry.RegistryClient
import bankops.topology.{RecordKey, Topology, TopicRecord, TopicSpec, TopologyOpts}

/** `bankops schemas plan|register|check`: the `.avsc` contracts in the registry, one subject per topic and record. */
object SchemasCommand {

  final case class Common(flags: ConnectionFlags, topology: Option[os.Path], strategy: Option[SubjectNameStrategy],
                          output: Option[OutputFormat], timeout: FiniteDuration)

  val strategyOpt: Opts[Option[SubjectNameStrategy]] =
    Opts.option[String]("subject-strategy", "Subject naming: TopicRecordNameStrategy (default), TopicNameStrategy or RecordNameStrategy; overrides the topology's.", metavar = "STRATEGY")
      .mapValidated(s => SubjectNameStrategy.parse(s).toValidatedNel).orNone

  val levelOpt: Opts[Option[String]] =
    Opts.option[String]("compatibility", s"Set each subject's compatibility level: ${LocalCompatibility.Levels.mkString(", ")}.", metavar = "LEVEL")
      .mapValidated(s => LocalCompatibility.parseLevel(s).toValidatedNel).orNone

  val common: Opts[Common] = (ConnectionFlags.opts, TopologyOpts.file, strategyOpt, OutputFormat.opts, TimeoutOpt.opts(30)).mapN(Common.apply)

  /** The topology, the desired subjects and a registry session. */
  def prepared[A](c: Common, shell: Shell)(f: (Topology, List[DesiredSubject], SchemaSync) => IO[A]): IO[A] =
    preparedWith(c, shell)((topology, desired, sync, _) => f(topology, desired, sync))

  /** As [[prepared]], with the connection settings for commands that reach Kafka too. */
  def preparedWith[A](c: Common, shell: Shell)(f: (Topology, List[DesiredSubject], SchemaSync, ConnectionSettings) => IO[A]): IO[A] =
    for {
      topology <- TopologyOpts.load(c.topology, shell)
      settings <- Connections.load(c.flags, shell)
      desired <- DesiredSubjects.load(topology, c.strategy)
      result <- f(topology, desired, new SchemaSync(RegistryClient(settings, c.timeout)), settings)
    } yield result

  def printPlan(plan: SchemaPlan, format: OutputFormat, shell: Shell): IO[Unit] = format match {
    case OutputFormat.Json => plan.subjects.traverse_(p => shell.println(p.asJson.noSpaces))
    case OutputFormat.Table =>
      shell.println(Table.render(List("SUBJECT", "STATUS", "DETAIL"), plan.subjects.map(p => List(p.desired.subject, p.status.name, p.detail))))
  }

  def planExit(plan: SchemaPlan): ExitCode = ExitCode(if (plan.isEmpty) 0 else Failure.ExitDifference)

  private val planCmd = Opts.subcommand("plan", "Per subject: new, unchanged, new-version (compatible) or incompatible (with the reason); exit 1 when anything is pending.")(
    (common, levelOpt).mapN { (c, level) => (shell: Shell) =>
      prepared(c, shell)((_, desired, sync) => sync.plan(desired, level))
        .flatTap(printPlan(_, OutputFormat.resolve(c.output, shell), shell)).map(planExit)
    }
  )

  def incompatibleMessage(plan: SchemaPlan): String =
    s"schemas: ${plan.incompatible.map(_.desired.subject).mkString(", ")} incompatible; nothing was registered"

  /** Registers after the gate; then asks again, so a success means the registry now holds every contract. */
  def register(sync: SchemaSync, desired: List[DesiredSubject], plan: SchemaPlan, level: Option[String], format: OutputFormat, shell: Shell): IO[ExitCode] =
    sync.register(plan).flatMap { done =>
      done.traverse_ { case (p, id) =>
        format match {
          case OutputFormat.Json => shell.println(io.circe.Json.obj("subject" -> p.desired.subject.asJson, "registered" -> true.asJson, "id" -> id.asJson).noSpaces)
          case OutputFormat.Table => shell.println(s"registered  ${p.desired.subject}  id $id")
        }
      } >> sync.plan(desired, level).flatMap { after =>
        if (after.isEmpty) shell.info(s"schemas: ${done.size} registered, ${plan.pending.size - done.size} levels set; every subject matches its .avsc").as(ExitCode.Success)
        else shell.info(s"schemas: registered, but still pending: ${after.pending.map(_.desired.subject).mkString(", ")}").as(ExitCode(Failure.ExitDifference))
      }
    }

  private val registerCmd = Opts.subcommand("register", "Test every subject's compatibility, then register; registers nothing when any is incompatible.")(
    (common, levelOpt, Opts.flag("dry-run", "Print the plan only.").orFalse).mapN { (c, level, dry) => (shell: Shell) =>
      val format = OutputFormat.resolve(c.output, shell)
      prepared(c, shell) { (_, desired, sync) =>
        sync.plan(desired, level).flatMap { plan =>
          if (dry || plan.isEmpty) printPlan(plan, format, shell).as(if (dry) planExit(plan) else ExitCode.Success)
          else if (plan.incompatible.nonEmpty) printPlan(plan, format, shell) >> shell.info(incompatibleMessage(plan)).as(ExitCode(Failure.ExitDifference))
          else register(sync, desired, plan, level, format, shell)
        }
      }
    }
  )

  private val checkCmd = Opts.subcommand("check", "Is one candidate .avsc compatible with its subject on a topic? For CI of schema changes; exit 1 when not.")(
    (common, Opts.argument[String]("FILE.avsc").map(os.Path(_, os.pwd)), Opts.option[String]("topic", "The topic the record goes on.", metavar = "TOPIC"))
      .mapN { (c, file, topic) => (shell: Shell) =>
        prepared(c, shell) { (topology, _, sync) =>
          IO.blocking(SchemaFiles.loadOne(file, topology.schemaFiles)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_)))).flatMap { candidate =>
            val strategy = c.strategy.getOrElse(topology.subjectNameStrategy)
            // The candidate alone on its topic, with the subjects of whatever it imports.
            val alone = topology.copy(topics = List(TopicSpec(topic, 1, 1, Map.empty, List(TopicRecord(candidate, RecordKey.Time)))),
              schemaFiles = topology.schemaFiles + (candidate.fullName -> candidate))
            val subject = strategy.subject(topic, candidate.fullName)
            DesiredSubjects.load(alone, Some(strategy)).flatMap(sync.plan(_, None))
              .flatMap { plan =>
                val mine = SchemaPlan(plan.subjects.filter(_.desired.subject == subject))
                printPlan(mine, OutputFormat.resolve(c.output, shell), shell).as(ExitCode(if (mine.incompatible.nonEmpty) Failure.ExitDifference else 0))
              }
          }
        }
      }
  )

  val job: Job = Job(
    "schemas",
    "Schemas as code: plan, register (compatibility-gated) and check the .avsc contracts under TopicRecordNameStrategy subjects.",
    "bankops schemas register --compatibility BACKWARD",
    planCmd orElse registerCmd orElse checkCmd
  )
}

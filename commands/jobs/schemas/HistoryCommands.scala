package bankops.jobs.schemas

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json
import io.circe.parser.parse
import io.circe.syntax._

import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Flags, Job, OutputFormat, Rendered, Shell, Shown, Table}
import bankops.flags.ConnectionOpts
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.registry.{RegistryClient, SubjectVersion}
import HistoryReports._

/** `schemas versions|show|diff`: a subject's history, read from the registry; nothing is changed. */
private[schemas] object HistoryCommands {

  final case class Common(flags: ConnectionFlags, output: Option[OutputFormat], timeout: FiniteDuration)
  private val common: Opts[Common] = (ConnectionOpts.opts, OutputFormat.opts, Flags.timeout(30.seconds)).mapN(Common.apply)

  private def session[A](c: Common, shell: Shell)(f: SchemaHistory => IO[A]): IO[A] =
    Connections.load(c.flags, shell).flatMap(s => RegistryClient.resource(s, c.timeout).use(client => f(new SchemaHistory(client))))

  private def bad[A](e: Either[String, A]): IO[A] = IO.fromEither(e.left.map(Failure.BadInput(_)))

  private val subject = Opts.argument[String]("SUBJECT")

  final case class VersionsOptions(common: Common, subject: String)

  private def renderVersions(o: VersionsOptions, r: VersionsReport): Shown =
    Shown(o.common.output,
      Rendered.result(r.versions.map(_.asJson),
        Table.render(List("VERSION", "ID", "CREATED", "REFERENCES"),
          r.versions.map(v => List(v.version.toString, v.id.toString, v.created.getOrElse("-"), referencesText(v.references))))) ++
        Rendered.note(r.datesFrom.fold(s"${o.subject}: ${r.versions.size} versions; no dates: the registry's Confluent API gives none")(from =>
            s"${o.subject}: ${r.versions.size} versions; dates from $from")),
      Exit.Ok)

  val versions = Job.Sub("versions",
    "A subject's versions, oldest first: version, id, when created (where the registry says), references.",
    (common, subject).mapN(VersionsOptions.apply))((o, shell) => session(o.common, shell)(_.versions(o.subject)), renderVersions)

  final case class ShowOptions(common: Common, subjectAt: String)

  private def renderShow(o: ShowOptions, v: SubjectVersion): Shown = {
    val schema = parse(v.schema).getOrElse(Json.fromString(v.schema))
    Shown(o.common.output,
      Rendered.result(
        List(Json.obj("subject" -> v.subject.asJson, "version" -> v.version.asJson, "id" -> v.id.asJson,
            "references" -> v.references.asJson, "schema" -> schema)),
        s"subject     ${v.subject}\nversion     ${v.version}\nid          ${v.id}\nreferences  ${referencesText(v.references)}\n" +
          schema.spaces2),
      Exit.Ok)
  }

  val show = Job.Sub("show",
    "One version of a subject (SUBJECT@VERSION, the latest without one): id, "
      + "version, references and the schema, pretty-printed.",
    (common, Opts.argument[String]("SUBJECT[@VERSION]")).mapN(ShowOptions.apply))(
    (o, shell) => bad(HistoryArgs.subjectAt(o.subjectAt)).flatMap { case (s, ref) => session(o.common, shell)(_.version(s, ref)) },
    renderShow)

  final case class DiffOptions(common: Common, subject: String, versions: List[String], docs: Boolean)

  val diff = Job.Sub("diff",
    "Field-level changes between two versions of a subject, or a version "
      + "and a .avsc file, and whether the registry accepts the change under the subject's level (with the reasons). Without versions: "
      + "the latest against the one before; with V1: V1 against the latest; exit 1 when the change is incompatible.",
    (common, subject, Opts.arguments[String]("V1 [V2 | FILE.avsc]").orEmpty,
      Opts.flag("doc", "Show documentation changes too (they change no data).").orFalse).mapN(DiffOptions.apply))(
    (o, shell) =>
      bad(HistoryArgs.diff(o.versions)).flatMap { case (old, to) => session(o.common, shell)(_.diff(o.subject, old, to, o.docs)) },
    (o, d: DiffReport) =>
      Shown(o.common.output, Rendered.result(List(d.asJson), diffText(d)), if (d.verdict.compatible) Exit.Ok else Exit.Difference))

  private def diffText(d: DiffReport): String = {
    val v = d.verdict
    val changes =
      if (d.changes.isEmpty) "no field-level changes"
      else Table.render(List("FIELD", "CHANGE", "BEFORE", "AFTER"),
        d.changes.map(ch => List(if (ch.path.isEmpty) "(record)" else ch.path, ch.change, ch.before.getOrElse(""), ch.after.getOrElse(""))))
    val verdict =
      if (v.compatible) s"compatible under ${v.level} (the registry's answer)"
      else s"incompatible under ${v.level} (the registry's answer); reasons from ${v.reasonsFrom.getOrElse("nowhere")}:" +
        v.reasons.map(r => s"\n  - $r").mkString
    s"${d.subject}: ${d.from} -> ${d.to}\n$changes\n$verdict"
  }
}

package bankops.jobs.schemas

import cats.effect.IO
import cats.syntax.all._
import org.apache.avro.Schema

import java.time.Instant

import bankops.base.Failure
import bankops.services.avro.NamedTypes
import bankops.services.contracts.SchemaFiles
import bankops.services.plan.{LocalCompatibility, SubjectVerdict}
import bankops.services.registry.{RegisteredSchema, RegistryClient, RegistryError, SchemaReference, SchemaResolver, SubjectVersion}

/** A diff's new side: a registered version, or a file standing in for one (with the references of the old side). */
private final case class Candidate(label: String, schema: Schema, registered: SubjectVersion)

/** `schemas versions/show/diff`, the typed entry points: a subject's history as the registry holds it. */
private[schemas] final class SchemaHistory(client: RegistryClient) {
  private val resolver = new SchemaResolver(client)

  /** The subject's version numbers, oldest first; exit 2 naming a subject the registry does not hold. */
  def versionNumbers(subject: String): IO[List[Int]] =
    client.versions(subject).recover { case RegistryError(404, _, _) => Nil }.flatMap { all =>
      if (all.isEmpty) IO.raiseError(Failure.BadInput(s"subject $subject does not exist in the registry at ${client.describe}"))
      else IO.pure(all.sorted)
    }

  def version(subject: String, ref: VersionRef): IO[SubjectVersion] = versionNumbers(subject).flatMap(version(subject, ref, _))

  private def version(subject: String, ref: VersionRef, all: List[Int]): IO[SubjectVersion] = {
    val missing = Failure.BadInput(s"subject $subject has no version ${ref.text} (its versions: ${all.mkString(", ")})")
    ref match {
      case VersionRef.Number(n) if !all.contains(n) => IO.raiseError(missing)
      case _ => client.version(subject, ref.text).flatMap(IO.fromOption(_)(missing))
    }
  }

  def versions(subject: String): IO[VersionsReport] =
    for {
      all <- versionNumbers(subject)
      found <- all.traverse(n => version(subject, VersionRef.Number(n), all))
      fromCore <- if (found.forall(_.ts.isDefined)) IO.pure(Map.empty[Int, String])
      else client.apicurioCreatedOn(subject, found.map(v => v.version -> v.id).toMap)
    } yield {
      val rows = found.map(v =>
        VersionInfo(v.subject, v.version, v.id, v.ts.map(Instant.ofEpochMilli(_).toString).orElse(fromCore.get(v.version)), v.references))
      val datesFrom =
        if (found.exists(_.ts.isDefined)) Some("the registry's Confluent API (ts)")
        else Option.when(fromCore.nonEmpty)("Apicurio's core API (/apis/registry/v3, createdOn)")
      VersionsReport(subject, rows, datesFrom)
    }

  /** `old` None: the version before the latest. The verdict is the registry's, its reasons bankops' own when it gives none. */
  def diff(subject: String, old: Option[VersionRef], to: DiffSide, docs: Boolean): IO[DiffReport] =
    for {
      all <- versionNumbers(subject)
      oldRef <- old.fold(all.dropRight(1).lastOption.map(VersionRef.Number(_): VersionRef).liftTo[IO](Failure.BadInput(
            s"subject $subject has only version ${all.last}: nothing to compare it with (give a FILE.avsc to compare with)")))(IO.pure)
      before <- version(subject, oldRef, all)
      beforeSchema <- parse(before)
      after <- to match {
        case DiffSide.Registered(ref) => version(subject, ref, all).flatMap(v => parse(v).map(Candidate(s"version ${v.version} (id ${v.id})", _, v)))
        case DiffSide.File(path) =>
          // The file may use the named types the registered version takes from its references.
          val types = NamedTypes.byName(List(beforeSchema)) - beforeSchema.getFullName
          IO.blocking(SchemaFiles.loadWithTypes(path, types)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))
            .map(f => Candidate(path.toString, f.schema, before.copy(schema = f.text)))
      }
      level <- client.subjectCompatibility(subject)
      answer <- client.testCompatibility(subject, after.registered.schema, after.registered.references, before.version.toString)
    } yield {
      val local = if (answer.isCompatible) Nil else LocalCompatibility.problems(level, after.schema, List(beforeSchema))
      val reasons = SubjectVerdict.problems(answer, local)
      val reasonsFrom = Option.when(reasons.nonEmpty)(if (answer.messages.nonEmpty) "the registry" else s"bankops (Avro's check under $level)")
      DiffReport(subject, s"version ${before.version} (id ${before.id})", after.label,
        SchemaDiff(beforeSchema, after.schema, docs) ++ references(before.references, after.registered.references),
        Verdict(level, answer.isCompatible, reasons, reasonsFrom))
    }

  private def parse(v: SubjectVersion): IO[Schema] = resolver.parse(RegisteredSchema(v.schema, v.references))

  private def references(before: List[SchemaReference], after: List[SchemaReference]): List[SchemaChange] = {
    def show(r: SchemaReference) = s"${r.name} from ${r.subject} version ${r.version}"
    before.filterNot(after.contains).map(r => SchemaChange("", "reference removed", Some(show(r)), None)) ++
      after.filterNot(before.contains).map(r => SchemaChange("", "reference added", None, Some(show(r))))
  }
}

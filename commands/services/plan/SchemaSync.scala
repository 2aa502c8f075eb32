package bankops.services.plan

import cats.effect.IO
import cats.syntax.all._

import bankops.services.contracts.DesiredSubject
import bankops.services.registry.{Lookup, RegisteredSchema, RegistryClient, SchemaReference, SchemaResolver}

/** The effectful side of `schemas`: asks the registry about each desired subject, registers what the plan says. */
final class SchemaSync(client: RegistryClient) {
  private val resolver = new SchemaResolver(client)

  /** References of a subject to the current versions of the subjects it imports from (None: one is not registered yet). */
  private def references(d: DesiredSubject, byName: Map[String, DesiredSubject]): IO[Option[List[SchemaReference]]] =
    d.dependsOn.traverse { dep =>
      val ds = byName(dep)
      references(ds, byName).flatMap {
        case None => IO.pure(None)
        case Some(refs) => client.lookup(ds.subject, ds.file.text, refs).map {
          case Lookup.Found(v) => Some(SchemaReference(ds.record, ds.subject, v.version))
          case _ => None
        }
      }
    }.map(_.sequence)

  def plan(desired: List[DesiredSubject], newLevel: Option[String]): IO[SchemaPlan] = {
    val byName = desired.map(d => d.subject -> d).toMap
    desired.traverse(d => status(d, byName, newLevel)).map(SchemaPlan(_))
  }

  private def status(d: DesiredSubject, byName: Map[String, DesiredSubject], newLevel: Option[String]): IO[SubjectPlan] =
    references(d, byName).flatMap { refs =>
      val found = refs.fold(IO.pure[Lookup](Lookup.NotRegistered))(r => client.lookup(d.subject, d.file.text, r))
      (found, client.subjectCompatibility(d.subject)).tupled.flatMap { case (lookup, level) =>
        val change = newLevel.filterNot(_.equalsIgnoreCase(level))
        val effective = change.getOrElse(level)
        lookup match {
          case Lookup.Found(v) => IO.pure(SubjectPlan(d, SubjectStatus.Unchanged(v.id, v.version), level, change))
          case Lookup.SubjectMissing => IO.pure(SubjectPlan(d, SubjectStatus.New, level, change))
          case Lookup.NotRegistered => client.version(d.subject).flatMap {
            case None => IO.pure(SubjectPlan(d, SubjectStatus.New, level, change))
            case Some(latest) =>
              resolver.parse(RegisteredSchema(latest.schema, latest.references)).flatMap { latestSchema =>
                if (latestSchema.toString == d.file.schema.toString || canonical(latestSchema) == d.file.canonical)
                  IO.pure(SubjectPlan(d, SubjectStatus.Unchanged(latest.id, latest.version), level, change))
                else verdict(d, refs, effective, change.isDefined, latestSchema).map { problems =>
                  val s = if (problems.isEmpty) SubjectStatus.NewVersion(latest.version) else SubjectStatus.Incompatible(effective, problems)
                  SubjectPlan(d, s, level, change)
                }
              }
          }
        }
      }
    }

  private def canonical(s: org.apache.avro.Schema) = org.apache.avro.SchemaNormalization.toParsingForm(s)

  /** The registry judges under its own level; bankops judges locally when the level is about to change or a reference is not registered yet. */
  private def verdict(d: DesiredSubject, refs: Option[List[SchemaReference]], level: String, levelChanging: Boolean,
                      latest: org.apache.avro.Schema): IO[List[String]] = {
    lazy val local = previous(d, level, latest).map(prev => LocalCompatibility.problems(level, d.file.schema, prev))
    refs match {
      case Some(r) if !levelChanging =>
        client.testCompatibility(d.subject, d.file.text, r).flatMap { c =>
          if (c.isCompatible) IO.pure(Nil)
          else if (c.messages.nonEmpty) IO.pure(c.messages)
          else local.map(ps => if (ps.isEmpty) List("the registry refused it without a reason") else ps)
        }
      case _ => local
    }
  }

  /** The versions a level compares with: all of them when transitive, else the latest. */
  private def previous(d: DesiredSubject, level: String, latest: org.apache.avro.Schema): IO[List[org.apache.avro.Schema]] =
    if (!level.toUpperCase.endsWith("_TRANSITIVE")) IO.pure(List(latest))
    else client.versions(d.subject).flatMap(_.traverse(v => client.version(d.subject, v.toString).flatMap(
      _.traverse(sv => resolver.parse(RegisteredSchema(sv.schema, sv.references)))))).map(_.flatten)

  /** Carries out a plan with nothing incompatible: levels first, then versions, imported subjects before their users. */
  def register(plan: SchemaPlan): IO[List[(SubjectPlan, Int)]] = {
    val byName = plan.subjects.map(p => p.desired.subject -> p.desired).toMap
    plan.pending.traverse { p =>
      p.newLevel.traverse_(l => client.setSubjectCompatibility(p.desired.subject, l)) >> (p.status match {
        case SubjectStatus.New | SubjectStatus.NewVersion(_) =>
          references(p.desired, byName).flatMap { refs =>
            client.register(p.desired.subject, p.desired.file.text, refs.getOrElse(Nil)).map(id => List(p -> id))
          }
        case _ => IO.pure(Nil)
      })
    }.map(_.flatten)
  }
}

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
        val change = SubjectVerdict.levelChange(level, newLevel)
        val effective = change.getOrElse(level)
        val status: IO[SubjectStatus] = SubjectVerdict.fromLookup(lookup).fold(client.version(d.subject).flatMap {
          case None => IO.pure[SubjectStatus](SubjectStatus.New)
          case Some(latest) =>
            resolver.parse(RegisteredSchema(latest.schema, latest.references)).flatMap { latestSchema =>
              if (SubjectVerdict.sameAsLatest(d.file, latestSchema)) IO.pure(SubjectStatus.Unchanged(latest.id, latest.version))
              else verdict(d, refs, effective, change.isDefined, latestSchema).map(SubjectVerdict.newVersion(latest.version, effective, _))
            }
        })(IO.pure)
        status.map(SubjectPlan(d, _, level, change))
      }
    }

  /** The registry judges under its own level; bankops judges locally when the level is about to change or a reference is not registered yet. */
  private def verdict(d: DesiredSubject, refs: Option[List[SchemaReference]], level: String, levelChanging: Boolean,
                      latest: org.apache.avro.Schema): IO[List[String]] = {
    lazy val local = previous(d, level, latest).map(prev => LocalCompatibility.problems(level, d.file.schema, prev))
    refs match {
      case Some(r) if !levelChanging =>
        client.testCompatibility(d.subject, d.file.text, r).flatMap { c =>
          if (c.isCompatible || c.messages.nonEmpty) IO.pure(SubjectVerdict.problems(c, Nil)) else local.map(SubjectVerdict.problems(c, _))
        }
      case _ => local
    }
  }

  /** The versions a level compares with: all of them when transitive, else the latest. */
  private def previous(d: DesiredSubject, level: String, latest: org.apache.avro.Schema): IO[List[org.apache.avro.Schema]] =
    if (!level.toUpperCase.endsWith("_TRANSITIVE")) IO.pure(List(latest))
    else client.versions(d.subject).flatMap(_.traverse(v =>
        client.version(d.subject, v.toString).flatMap(
          _.traverse(sv => resolver.parse(RegisteredSchema(sv.schema, sv.references)))))).map(_.flatten)

  /** Carries out a plan with nothing incompatible: levels first, then versions, imported subjects before their users. */
  def register(plan: SchemaPlan): IO[List[(SubjectPlan, Int)]] = {
    val byName = plan.subjects.map(p => p.desired.subject -> p.desired).toMap
    plan.pending.traverse { p =>
      p.newLevel.traverse_(l => client.setSubjectCompatibility(p.desired.subject, l)) >>
        (p.status match {
          case SubjectStatus.New | SubjectStatus.NewVersion(_) =>
            references(p.desired, byName).flatMap { refs =>
              client.register(p.desired.subject, p.desired.file.text, refs.getOrElse(Nil)).map(id => List(p -> id))
            }
          case _ => IO.pure(Nil)
        })
    }.map(_.flatten)
  }
}

package bankops.jobs.replay

import cats.effect.IO
import cats.syntax.all._

import scala.collection.concurrent.TrieMap

import bankops.base.Failure
import bankops.services.avro.WireFormat
import bankops.services.contracts.SubjectNameStrategy
import bankops.services.registry.{RegistryClient, RegistryError, SchemaResolver}

/** What a dry run from a topic to a topic checks that a real run would meet, with nothing written anywhere: each schema
  * id of the records resolves on the source registry (else exit 2 naming it), and each record type's subject on the
  * target topic holds that schema on the target registry. A subject that does not is named: another registry's would be
  * registered by the real run; on the same registry the records would be sent under a subject that does not hold them.
  */
private[replay] final class DryRunCheck(source: SchemaResolver, target: RegistryClient, strategy: SubjectNameStrategy, topic: String,
                                        sameRegistry: Boolean) {
  private val seen = TrieMap.empty[Int, Option[String]] // schema id -> a note on its target subject, if any
  @volatile private var unframed = 0L

  def observe(values: Iterable[Array[Byte]]): IO[Unit] = {
    val ids = values.flatMap(v => if (v == null) None else WireFormat.schemaIdOf(v).toOption)
    unframed += values.count(v => v != null && WireFormat.schemaIdOf(v).isLeft)
    ids.toList.distinct.filterNot(seen.contains).traverse_ { id =>
      source.byId(id).attempt.flatMap {
        // On the same registry the real run sends the bytes as they are: an unknown id is worth a warning, not a refusal.
        case Left(RegistryError(404, _, _)) if sameRegistry =>
          IO(seen.put(id, Some(s"schema id $id of the records is not on the registry at ${source.client.describe}: they would be sent as they are")))
            .void
        case Left(RegistryError(404, _, _)) =>
          IO.raiseError(Failure.BadInput(s"schema id $id of the records is not on the source registry at ${source.client.describe}"))
        case Left(e) => IO.raiseError(e)
        case Right(schema) => check(id, schema)
      }
    }
  }

  private def check(id: Int, schema: org.apache.avro.Schema): IO[Unit] = {
    val subject = strategy.subject(topic, schema.getFullName)
    target.schemaId(subject, schema.toString, register = false).map {
      case Right(_) => None
      case Left(_) if sameRegistry =>
        Some(s"subject $subject does not hold ${schema.getFullName} (id $id): consumers of $topic that look its subject up will not find it")
      case Left(_) => Some(s"${schema.getFullName} (id $id) would be registered under $subject on ${target.describe}")
    }.flatMap(note => IO(seen.put(id, note)).void)
  }

  /** One line of what was checked, and the notes. */
  def report: (String, List[String]) = {
    val notes = seen.values.flatten.toList.sorted
    val framing = if (unframed > 0) s"; $unframed value(s) not in the Confluent wire format, sent as they are" else ""
    (s"${seen.size} schema id(s) resolved on the source registry and checked against $topic's subjects$framing", notes)
  }
}

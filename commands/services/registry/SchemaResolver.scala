package bankops.services.registry

import cats.effect.IO
import cats.syntax.all._
import org.apache.avro.Schema

import scala.collection.concurrent.TrieMap
import scala.jdk.CollectionConverters._
import scala.util.Try

import bankops.services.avro.NamedTypes

/** Writer schemas by registry id, parsed once and cached, with their references resolved
  * (each referenced subject version parsed first, its named types made known).
  */
final class SchemaResolver(val client: RegistryClient) {
  private val parsed = TrieMap.empty[Int, Schema]

  def byId(id: Int): IO[Schema] =
    parsed.get(id).fold(client.schemaById(id).flatMap(parse).flatTap(s => IO(parsed.put(id, s))))(s => IO.pure(s))

  /** A subject's version (`latest` or a number) with its schema parsed; None when the subject or that version does not exist. */
  def subjectVersion(subject: String, version: String = "latest"): IO[Option[(SubjectVersion, Schema)]] =
    client.version(subject, version).flatMap(_.traverse(v => parse(RegisteredSchema(v.schema, v.references)).map(v -> _)))

  /** A schema's text with its references resolved; [[SchemaNotAvro]] for another type, or Avro text that does not parse. */
  def parse(registered: RegisteredSchema): IO[Schema] =
    IO.raiseWhen(!registered.schemaType.equalsIgnoreCase(RegisteredSchema.Avro))(
      SchemaNotAvro(client.describe, s"a ${registered.schemaType} schema", registered.schema)) >>
      registered.references.traverse { r =>
        client.version(r.subject, r.version.toString).flatMap(v =>
          IO.fromOption(v)(RegistryError(404, None, s"reference ${r.name}: subject ${r.subject} version ${r.version} not found")))
          .flatMap(v => parse(RegisteredSchema(v.schema, v.references)))
      }.flatMap { deps =>
        IO.fromEither(Try {
          val parser = new Schema.Parser()
          val known = NamedTypes.byName(deps)
          if (known.nonEmpty) parser.addTypes(known.asJava)
          parser.parse(registered.schema)
        }.toEither.left.map(e => SchemaNotAvro(client.describe, String.valueOf(e.getMessage), registered.schema)))
      }
}

package bankops.jobs.replay

import cats.effect.IO
import cats.syntax.all._

import scala.collection.concurrent.TrieMap

import bankops.services.avro.WireFormat
import bankops.services.contracts.SubjectNameStrategy
import bankops.services.registry.{RegistryClient, SchemaResolver}

/** Schema ids from a source registry to a target registry: the writer schema is looked up (or registered)
  * under the target subject, and only the frame's id changes; the Avro payload stays byte-identical.
  */
private[replay] final class IdTranslator(source: SchemaResolver, target: RegistryClient, strategy: SubjectNameStrategy, topic: String) {
  private val ids = TrieMap.empty[Int, Int]

  def prepare(values: Iterable[Array[Byte]]): IO[Unit] =
    values.flatMap(v => WireFormat.schemaIdOf(v).toOption).toList.distinct.filterNot(ids.contains).traverse_ { id =>
      source.byId(id).flatMap { schema =>
        val subject = strategy.subject(topic, schema.getFullName)
        target.schemaId(subject, schema.toString, register = true)
          .flatMap(r => IO.fromEither(r.left.map(l => new IllegalStateException(s"$subject: $l right after registering"))))
      }.flatMap(t => IO(ids.put(id, t)).void)
    }

  /** The value with its frame's id rewritten; values not in the wire format pass unchanged. */
  def apply(value: Array[Byte]): Array[Byte] =
    WireFormat.schemaIdOf(value).toOption.flatMap(ids.get) match {
      case Some(t) => val out = value.clone(); java.nio.ByteBuffer.wrap(out, 1, 4).putInt(t); out
      case None => value
    }
}

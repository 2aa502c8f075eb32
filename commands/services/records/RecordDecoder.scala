package bankops.services.records

import cats.effect.IO
import cats.syntax.all._
import fs2.Chunk
import org.apache.avro.Schema
import org.apache.avro.generic.{GenericDatumReader, GenericRecord}
import org.apache.kafka.clients.consumer.ConsumerRecord

import java.time.Instant
import scala.collection.concurrent.TrieMap

import bankops.services.avro.{AvroJson, DecodeError, WireFormat}
import bankops.services.registry.{RegistryError, RegistryGarbled, SchemaNotAvro, SchemaResolver}

/** Decodes values in the Confluent wire format with their writer schemas. Schemas are fetched once per id
  * for a whole chunk; an id the registry does not know is remembered as unknown; an unreachable registry
  * stops the run (exit 3) rather than marking every record undecodable.
  */
final class RecordDecoder(resolver: SchemaResolver, plainValues: Boolean = true) {
  import RecordDecoder.Raw

  private val unknown = TrieMap.empty[Int, String]
  private val known = TrieMap.empty[Int, (Schema, GenericDatumReader[Any])]

  def decodeChunk(chunk: Chunk[Raw]): IO[Chunk[Decoded]] = resolveIds(chunk).map(_ => chunk.map(decode))

  /** The writer schema of an id already resolved by [[resolveIds]]. */
  def writerSchema(id: Int): Option[Schema] = known.get(id).map(_._1)

  /** Fetches the writer schemas a chunk's values name, once per id. */
  def resolveIds(chunk: Chunk[Raw]): IO[Unit] = {
    // Once per record read: a plain loop over the frames' ids, not a list of options per chunk.
    val ids = scala.collection.mutable.LinkedHashSet.empty[Int]
    chunk.foreach { r =>
      if (WireFormat.isFramed(r.value)) {
        val id = WireFormat.idOf(r.value)
        if (!known.contains(id) && !unknown.contains(id)) ids += id
      }
    }
    ids.toList.traverse_ { id =>
      resolver.byId(id).attempt.flatMap {
        case Right(s) => IO(known.put(id, (s, new GenericDatumReader[Any](s)))).void
        // Unknown to the registry, or a schema that does not parse: those records are shown undecodable, saying why.
        case Left(e: RegistryError) if e.kind == RegistryError.Kind.NotFound || e.kind == RegistryError.Kind.Rejected =>
          IO(unknown.put(id, e.message)).void
        case Left(e: RegistryGarbled) => IO(unknown.put(id, e.getMessage)).void
        case Left(e: SchemaNotAvro) => IO(unknown.put(id, e.getMessage)).void
        case Left(e) => IO.raiseError(e)
      }
    }
  }

  private def decode(r: Raw): Decoded = {
    val time = r.timestamp
    val base = Envelope(r.topic, r.partition, r.offset, if (time >= 0) Some(Instant.ofEpochMilli(time)) else None, r.timestampType.name,
      Option(r.key), r.headers.toArray.toList.map(h => h.key -> Option(h.value)), None, None, None, None, None)
    RecordDecoder.decoded(base, r.value, plainValues)(id =>
      known.get(id).toRight(DecodeError.UnknownSchemaId(id, unknown.getOrElse(id, "not found"))))
  }
}

object RecordDecoder {

  /** A record as the consumer hands it over, value undecoded (`services/kafka`'s `TopicReader.Raw`, the same type). */
  type Raw = ConsumerRecord[Array[Byte], Array[Byte]]

  /** A record's envelope (its value's fields unset) completed with its `value` decoded by the reader of its schema id
    * (or the reason it was not): one way for records read from Kafka and records read from an archive.
    */
  def decoded(base: Envelope, value: Array[Byte], plainValues: Boolean)(reader: Int => Either[DecodeError, (Schema, GenericDatumReader[Any])])
      : Decoded = {
    val frame: Either[DecodeError, Int] = WireFormat.schemaIdOf(value)
    val result = frame.flatMap(id => reader(id).flatMap { case (s, r) => WireFormat.decodeFramed(value, id, r).map(d => (id, s, d)) })
    result match {
      case Right((id, schema, datum)) =>
        val name = datum match { case g: GenericRecord => g.getSchema.getFullName; case _ => schema.getFullName }
        Decoded(base.copy(schemaId = Some(id), record = Some(name), value = if (plainValues) Some(AvroJson.plain(datum, schema)) else None),
          Some(schema), Some(datum))
      case Left(err) =>
        Decoded(base.copy(schemaId = frame.toOption, error = Some(err.reason), raw = Some(Option(value).getOrElse(Array.emptyByteArray))), None, None)
    }
  }
}

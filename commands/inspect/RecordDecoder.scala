package bankops.inspect

import cats.effect.IO
import cats.syntax.all._
import fs2.Chunk
import org.apache.avro.Schema
import org.apache.avro.generic.GenericRecord

import java.time.Instant
import scala.collection.concurrent.TrieMap

import bankops.avro.{AvroJson, DecodeError, Frame, WireFormat}
import bankops.kafka.TopicReader.Raw
import bankops.registry.{RegistryError, SchemaResolver}

/** A record read from Kafka with its value decoded (or the reason it was not). */
final case class Decoded(envelope: Envelope, schema: Option[Schema], datum: Option[Any]) {
  def ok: Boolean = datum.isDefined
}

/** Decodes values in the Confluent wire format with their writer schemas. Schemas are fetched once per id
  * for a whole chunk; an id the registry does not know is remembered as unknown; an unreachable registry
  * stops the run (exit 3) rather than marking every record undecodable.
  */
final class RecordDecoder(resolver: SchemaResolver) {
  private val unknown = TrieMap.empty[Int, String]
  private val known = TrieMap.empty[Int, Schema]

  def decodeChunk(chunk: Chunk[Raw]): IO[Chunk[Decoded]] = {
    val ids = chunk.toList.flatMap(r => WireFormat.unframe(r.value).toOption.map(_.schemaId)).distinct
      .filterNot(id => known.contains(id) || unknown.contains(id))
    ids.traverse_ { id =>
      resolver.byId(id).attempt.flatMap {
        case Right(s) => IO(known.put(id, s)).void
        case Left(e: RegistryError) if e.status == 404 || e.status == 422 || e.status == 200 => IO(unknown.put(id, e.message)).void
        case Left(e) => IO.raiseError(e)
      }
    }.map(_ => chunk.map(decode))
  }

  private def decode(r: Raw): Decoded = {
    val frame: Either[DecodeError, Frame] = WireFormat.unframe(r.value)
    val result = frame.flatMap { f =>
      known.get(f.schemaId) match {
        case Some(s) => WireFormat.decodeGeneric(f, s).map(d => (f.schemaId, s, d))
        case None => Left(DecodeError.UnknownSchemaId(f.schemaId, unknown.getOrElse(f.schemaId, "not found")))
      }
    }
    val ts = r.timestamp
    val (time, kind) = ts.createTime.map(_ -> "CreateTime").orElse(ts.logAppendTime.map(_ -> "LogAppendTime"))
      .orElse(ts.unknownTime.map(_ -> "NoTimestampType")).getOrElse(-1L -> "NoTimestampType")
    val headers = r.headers.toChain.toList.map(h => h.key -> Option(h.value))
    val base = Envelope(r.topic, r.partition, r.offset, if (time >= 0) Some(Instant.ofEpochMilli(time)) else None, kind,
      Option(r.key), headers, frame.toOption.map(_.schemaId), None, None, None, None)
    result match {
      case Right((id, schema, datum)) =>
        val name = datum match { case g: GenericRecord => g.getSchema.getFullName; case _ => schema.getFullName }
        Decoded(base.copy(schemaId = Some(id), record = Some(name), value = Some(AvroJson.plain(datum, schema))), Some(schema), Some(datum))
      case Left(err) => Decoded(base.copy(error = Some(err.reason), raw = Some(Option(r.value).getOrElse(Array.emptyByteArray))), None, None)
    }
  }
}

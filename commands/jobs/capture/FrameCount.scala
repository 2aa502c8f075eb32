package bankops.jobs.capture

import org.apache.avro.generic.GenericDatumReader

import java.nio.ByteBuffer
import scala.collection.mutable

import bankops.services.avro.WireFormat

/** Restore's schema-id rewriting, counted: bytes that start like a Confluent frame get the target's id only when they
  * decode with the captured schema of their id; the rest are written unchanged and said. One per topic, used by one
  * stream at a time.
  */
private[capture] final class FrameCount {
  private var lookalikes = 0L
  private val unknown = mutable.Map.empty[Int, Long]

  def translated(bytes: Array[Byte], ids: Map[Int, Int], readers: Map[Int, (org.apache.avro.Schema, GenericDatumReader[Any])],
                 value: Boolean): Array[Byte] =
    if (bytes.length < WireFormat.HeaderSize || bytes(0) != WireFormat.MagicByte) bytes
    else {
      val id = ByteBuffer.wrap(bytes, 1, 4).getInt
      (ids.get(id), readers.get(id)) match {
        case (Some(to), Some((_, reader))) if WireFormat.decodeFramed(bytes, id, reader).isRight =>
          val out = bytes.clone(); ByteBuffer.wrap(out, 1, 4).putInt(to); out
        case (Some(_), _) => lookalikes += 1; bytes
        // A key that is not a frame of a captured schema is a key of another kind: only values are said.
        case (None, _) => if (value) unknown(id) = unknown.getOrElse(id, 0L) + 1; bytes
      }
    }

  def differences(target: String): List[String] =
    Option.when(lookalikes > 0)(
      s"$target: $lookalikes key(s) or value(s) begin like a frame of a captured schema but do not decode with it: written unchanged, " +
        "their first bytes not taken for a schema id").toList ++
      Option.when(unknown.nonEmpty)(
        s"$target: ${unknown.values.sum} value(s) begin like frames of schema id(s) ${unknown.keys.toList.sorted.mkString(", ")}, which the " +
          "archive holds no schema for: written unchanged, ids not translated")
}

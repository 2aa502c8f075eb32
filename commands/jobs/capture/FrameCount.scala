package bankops.jobs.capture

import org.apache.avro.generic.GenericDatumReader

import java.nio.ByteBuffer
import java.util.concurrent.atomic.LongAdder
import scala.collection.concurrent.TrieMap

import bankops.services.avro.WireFormat

/** Restore's schema-id rewriting, counted: bytes that start like a Confluent frame get the target's id only when they
  * decode with the captured schema of their id; the rest are written unchanged and said. One per topic, shared by the
  * threads that frame its records.
  */
private[capture] final class FrameCount {
  private val lookalikes = new LongAdder
  private val unknown = TrieMap.empty[Int, LongAdder]

  def translated(bytes: Array[Byte], ids: Map[Int, Int], readers: Map[Int, (org.apache.avro.Schema, GenericDatumReader[Any])],
                 value: Boolean): Array[Byte] =
    if (bytes.length < WireFormat.HeaderSize || bytes(0) != WireFormat.MagicByte) bytes
    else {
      val id = ByteBuffer.wrap(bytes, 1, 4).getInt
      (ids.get(id), readers.get(id)) match {
        case (Some(to), Some((_, reader))) if WireFormat.decodeFramed(bytes, id, reader).isRight =>
          val out = bytes.clone(); ByteBuffer.wrap(out, 1, 4).putInt(to); out
        case (Some(_), _) => lookalikes.increment(); bytes
        // A key that is not a frame of a captured schema is a key of another kind: only values are said.
        case (None, _) => if (value) unknown.getOrElseUpdate(id, new LongAdder).increment(); bytes
      }
    }

  def differences(target: String): List[String] =
    Option.when(lookalikes.sum > 0)(
      s"$target: ${lookalikes.sum} key(s) or value(s) begin like a frame of a captured schema but do not decode with it: written unchanged, " +
        "their first bytes not taken for a schema id").toList ++
      Option.when(unknown.nonEmpty)(
        s"$target: ${unknown.values.map(_.sum).sum} value(s) begin like frames of schema id(s) ${unknown.keys.toList.sorted.mkString(", ")}, which the " +
          "archive holds no schema for: written unchanged, ids not translated")
}

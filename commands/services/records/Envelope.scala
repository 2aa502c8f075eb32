package bankops.services.records

import io.circe.Json

import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.time.Instant

/** One record as bankops prints and replays it: where it was, its key, headers and timestamp,
  * and either the decoded value or why it did not decode (with the raw bytes).
  */
final case class Envelope(
    topic: String,
    partition: Int,
    offset: Long,
    timestamp: Option[Instant],
    timestampType: String,
    key: Option[Array[Byte]],
    headers: List[(String, Option[Array[Byte]])],
    schemaId: Option[Int],
    record: Option[String],
    value: Option[Json],
    error: Option[String],
    raw: Option[Array[Byte]]
) {
  def keyText: Option[String] = key.flatMap(Envelope.utf8)
}

object Envelope {
  /** Strict UTF-8: None when the bytes are not text. ASCII, the common case, skips the decoder. */
  def utf8(b: Array[Byte]): Option[String] =
    if (ascii(b)) Some(new String(b, StandardCharsets.ISO_8859_1))
    else try Some(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString)
    catch { case _: CharacterCodingException => None }

  private def ascii(b: Array[Byte]): Boolean = {
    var i = 0
    while (i < b.length && b(i) >= 0) i += 1
    i == b.length
  }
}

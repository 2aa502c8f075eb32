package bankops.services.kafka

import io.circe.Json

import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.time.Instant
import java.util.Base64

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
  private val b64 = Base64.getEncoder

  /** Strict UTF-8: None when the bytes are not text. ASCII, the common case, skips the decoder. */
  def utf8(b: Array[Byte]): Option[String] =
    if (b.forall(_ >= 0)) Some(new String(b, StandardCharsets.ISO_8859_1))
    else try Some(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
      .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString)
    catch { case _: CharacterCodingException => None }

  private val printer = io.circe.Printer.noSpaces

  /** The JSON line written straight into `sb` (same fields and order as [[json]]): the hot path of inspect. */
  def appendJson(e: Envelope, value: Option[Json], sb: java.lang.StringBuilder, writeValue: Option[java.lang.StringBuilder => Unit] = None): Unit = {
    def str(s: String): Unit = bankops.services.avro.JsonText.string(s, sb)
    sb.append("{\"topic\":"); str(e.topic)
    sb.append(",\"partition\":").append(e.partition).append(",\"offset\":").append(e.offset)
    sb.append(",\"timestamp\":"); e.timestamp.fold(sb.append("null"))(t => sb.append('"').append(t.toString).append('"'))
    sb.append(",\"timestampType\":\"").append(e.timestampType).append('"')
    e.key match {
      case None => sb.append(",\"key\":null")
      case Some(k) => utf8(k) match {
        case Some(t) => sb.append(",\"key\":"); str(t)
        case None => sb.append(",\"keyBase64\":\"").append(b64.encodeToString(k)).append('"')
      }
    }
    if (e.headers.isEmpty) sb.append(",\"headers\":[]")
    else { sb.append(",\"headers\":"); printer.unsafePrintToAppendable(headersJson(e.headers), sb) }
    sb.append(",\"schemaId\":"); e.schemaId.fold(sb.append("null"))(i => sb.append(i))
    sb.append(",\"record\":"); e.record.fold(sb.append("null"))(r => { str(r); sb })
    (value, writeValue) match {
      case (Some(v), _) => sb.append(",\"value\":"); printer.unsafePrintToAppendable(v, sb)
      case (None, Some(write)) => sb.append(",\"value\":"); write(sb)
      case (None, None) => e.error.foreach { err => sb.append(",\"error\":"); str(err) }
    }
    e.raw.foreach(r => sb.append(",\"raw\":\"").append(b64.encodeToString(r)).append('"'))
    sb.append('}')
  }

  /** Headers as `{key, value}`, or `{key, base64}` when a value is not UTF-8 text. */
  def headersJson(headers: List[(String, Option[Array[Byte]])]): Json = Json.fromValues(headers.map { case (k, v) =>
    Json.obj("key" -> Json.fromString(k), v match {
      case None => "value" -> Json.Null
      case Some(b) => utf8(b).fold("base64" -> Json.fromString(b64.encodeToString(b)))(t => "value" -> Json.fromString(t))
    })
  })

  /** The JSON line: `key` as text (or `keyBase64`), headers as `{key, value}` (or `{key, base64}`). */
  def json(e: Envelope, value: Option[Json]): Json = {
    val keyField = e.key match {
      case None => List("key" -> Json.Null)
      case Some(k) => utf8(k).fold(List("keyBase64" -> Json.fromString(b64.encodeToString(k))))(t => List("key" -> Json.fromString(t)))
    }
    val headers = headersJson(e.headers)
    val body = value match {
      case Some(v) => List("value" -> v)
      case None => e.error.map(err => "error" -> Json.fromString(err)).toList
    }
    val raw = e.raw.map(r => "raw" -> Json.fromString(b64.encodeToString(r))).toList
    Json.fromFields(List(
      "topic" -> Json.fromString(e.topic), "partition" -> Json.fromInt(e.partition), "offset" -> Json.fromLong(e.offset),
      "timestamp" -> e.timestamp.fold(Json.Null)(t => Json.fromString(t.toString)), "timestampType" -> Json.fromString(e.timestampType)
    ) ++ keyField ++ List("headers" -> headers, "schemaId" -> e.schemaId.fold(Json.Null)(Json.fromInt),
      "record" -> e.record.fold(Json.Null)(Json.fromString)) ++ body ++ raw)
  }
}

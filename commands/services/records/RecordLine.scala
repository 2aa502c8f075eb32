package bankops.services.records

import io.circe.{ACursor, Json}

import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64
import scala.util.Try

import bankops.base.JsonInput
import bankops.services.avro.JsonText

/** One record as a line of JSON, read back: what `inspect -o json` prints and `replay --to-file` writes, and what
  * `replay --from-file` reads (a hand-written fixture needs only `record` and `value`; everything else is optional
  * and kept when present). The writer and the reader of that format live here and nowhere else.
  */
final case class RecordLine(line: Int, topic: Option[String], partition: Option[Int], offset: Option[Long], timestamp: Option[Long],
                            timestampType: Option[String], key: Option[Array[Byte]], headers: List[(String, Array[Byte])],
                            schemaId: Option[Int], record: Option[String], value: Option[Json], error: Option[String],
                            raw: Option[Array[Byte]])

object RecordLine {
  private val encoder = Base64.getEncoder
  private val decoder = Base64.getDecoder
  private val printer = io.circe.Printer.noSpaces

  /** The line of `e`, written straight into `sb` (the hot path of inspect): `key` as text or `keyBase64`, headers as
    * `{key, value}` or `{key, base64}`, then `value` (given, or written by `writeValue`) or the `error`, and `raw`.
    */
  def write(e: Envelope, value: Option[Json], sb: java.lang.StringBuilder, writeValue: Option[java.lang.StringBuilder => Unit] = None): Unit = {
    def str(s: String): Unit = JsonText.string(s, sb)
    sb.append("{\"topic\":"); str(e.topic)
    sb.append(",\"partition\":").append(e.partition).append(",\"offset\":").append(e.offset)
    sb.append(",\"timestamp\":"); e.timestamp.fold(sb.append("null"))(t => { sb.append('"'); IsoTime.append(t, sb); sb.append('"') })
    sb.append(",\"timestampType\":"); str(e.timestampType)
    e.key match {
      case None => sb.append(",\"key\":null")
      case Some(k) => Envelope.utf8(k) match {
          case Some(t) => sb.append(",\"key\":"); str(t)
          case None => sb.append(",\"keyBase64\":\"").append(encoder.encodeToString(k)).append('"')
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
    e.raw.foreach(r => sb.append(",\"raw\":\"").append(encoder.encodeToString(r)).append('"'))
    sb.append('}')
  }

  /** The line of a decoded record as `inspect -o json` prints it: a decoded value written straight from its datum. */
  def writeDecoded(d: Decoded, sb: java.lang.StringBuilder): Unit =
    if (d.envelope.value.isEmpty && d.datum.isDefined)
      write(d.envelope, None, sb, Some(out => bankops.services.avro.AvroJson.writePlain(d.datum.get, d.schema.get, out)))
    else write(d.envelope, None, sb)

  /** The line of `e` as a string, without the newline. */
  def text(e: Envelope, value: Option[Json]): String = {
    val sb = new java.lang.StringBuilder(256)
    write(e, value, sb)
    sb.toString
  }

  private def headersJson(headers: List[(String, Option[Array[Byte]])]): Json = Json.fromValues(headers.map { case (k, v) =>
    Json.obj("key" -> Json.fromString(k),
      v match {
        case None => "value" -> Json.Null
        case Some(b) => Envelope.utf8(b).fold("base64" -> Json.fromString(encoder.encodeToString(b)))(t => "value" -> Json.fromString(t))
      })
  })

  /** Reads a line; `line` is its number in the file. A header whose value is null reads as a null array, as Kafka has it.
    * Lines of the usual shape are read in one streaming pass ([[RecordLineStream]]); any other line, and every line
    * that is not valid, by the tree below, which says what is wrong.
    */
  def parse(text: String, line: Int): Either[String, RecordLine] =
    RecordLineStream.read(text, line).fold(parseTree(text, line))(Right(_))

  /** Reads a line through a whole JSON tree: the reference reading, and the one that names a line's faults. */
  private[records] def parseTree(text: String, line: Int): Either[String, RecordLine] =
    JsonInput.parse(text).flatMap { j =>
      val c = j.hcursor
      def opt[A](f: ACursor => Option[A], name: String, what: String): Either[String, Option[A]] = {
        val field = c.downField(name)
        if (field.failed || field.focus.exists(_.isNull)) Right(None) else f(field).map(Some(_)).toRight(s"$name: expected $what")
      }
      def string(name: String, what: String) = opt(_.focus.flatMap(_.asString), name, what)
      def base64(name: String) = opt(_.focus.flatMap(_.asString).flatMap(s => Try(decoder.decode(s)).toOption), name, "base64")
      for {
        _ <- j.asObject.toRight("expected a JSON object")
        topic <- string("topic", "a topic name")
        partition <- opt(_.focus.flatMap(_.asNumber).flatMap(_.toInt), "partition", "a partition number")
        offset <- opt(_.focus.flatMap(_.asNumber).flatMap(_.toLong), "offset", "an offset")
        timestamp <- opt(
          _.focus.flatMap(t => t.asString.flatMap(s => Try(IsoTime.parseMillis(s)).toOption).orElse(t.asNumber.flatMap(_.toLong))),
          "timestamp", "an ISO-8601 time or epoch milliseconds")
        timestampType <- string("timestampType", "a timestamp type")
        keyText <- string("key", "a string")
        keyB64 <- base64("keyBase64")
        headers <- c.downField("headers").focus.filterNot(_.isNull).fold[Either[String, List[(String, Array[Byte])]]](Right(Nil)) { h =>
          h.asArray.toRight("headers: expected a list of {key, value}").flatMap(_.toList.zipWithIndex.foldLeft[Either[String,
              List[(String, Array[Byte])]]](Right(Nil)) {
              case (acc, (hj, i)) => acc.flatMap { l =>
                  val hc = hj.hcursor
                  val k = hc.get[String]("key").toOption
                  val v = hc.get[String]("value").toOption.map(_.getBytes(UTF_8)).orElse(
                    hc.get[String]("base64").toOption.flatMap(s => Try(decoder.decode(s)).toOption))
                  val isNull = hc.downField("value").focus.exists(_.isNull)
                  k.toRight(s"headers[$i]: needs a key").map(kk => l :+ (kk -> v.getOrElse(if (isNull) null else Array.emptyByteArray)))
                }
            })
        }
        schemaId <- opt(_.focus.flatMap(_.asNumber).flatMap(_.toInt), "schemaId", "a schema id")
        record <- string("record", "a record name")
        error <- string("error", "a string")
        raw <- base64("raw")
      } yield RecordLine(line, topic, partition, offset, timestamp, timestampType, keyText.map(_.getBytes(UTF_8)).orElse(keyB64), headers,
        schemaId, record, c.downField("value").focus, error, raw)
    }
}

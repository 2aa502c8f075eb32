package bankops.jobs.replay

import io.circe.{ACursor, Json}
import io.circe.parser.parse

import java.nio.charset.StandardCharsets.UTF_8
import java.time.Instant
import java.util.Base64
import scala.util.Try

/** One line of a JSON-lines file as inspect and replay write it (or a hand-written fixture: only `record`
  * and `value` are needed). Everything else is optional and kept when present.
  */
final case class FileLine(line: Int, partition: Option[Int], offset: Option[Long], timestamp: Option[Long], key: Option[Array[Byte]],
                          headers: List[(String, Array[Byte])], schemaId: Option[Int], record: Option[String], value: Option[Json],
                          raw: Option[Array[Byte]])

object FileLine {
  private val b64 = Base64.getDecoder

  def parseLine(text: String, line: Int): Either[String, FileLine] =
    parse(text).left.map(e => s"not JSON: ${e.message}").flatMap { j =>
      val c = j.hcursor
      def opt[A](f: ACursor => Option[A], name: String, what: String): Either[String, Option[A]] = {
        val field = c.downField(name)
        if (field.failed || field.focus.exists(_.isNull)) Right(None) else f(field).map(Some(_)).toRight(s"$name: expected $what")
      }
      for {
        _ <- j.asObject.toRight("expected a JSON object")
        partition <- opt(_.focus.flatMap(_.asNumber).flatMap(_.toInt), "partition", "a partition number")
        offset <- opt(_.focus.flatMap(_.asNumber).flatMap(_.toLong), "offset", "an offset")
        timestamp <- opt(_.focus.flatMap(t => t.asString.flatMap(s => Try(Instant.parse(s).toEpochMilli).toOption).orElse(t.asNumber.flatMap(_.toLong))),
          "timestamp", "an ISO-8601 time or epoch milliseconds")
        keyText <- opt(_.focus.flatMap(_.asString), "key", "a string")
        keyB64 <- opt(_.focus.flatMap(_.asString).flatMap(s => Try(b64.decode(s)).toOption), "keyBase64", "base64")
        headers <- c.downField("headers").focus.filterNot(_.isNull).fold[Either[String, List[(String, Array[Byte])]]](Right(Nil)) { h =>
          h.asArray.toRight("headers: expected a list of {key, value}").flatMap(_.toList.zipWithIndex.foldLeft[Either[String, List[(String, Array[Byte])]]](Right(Nil)) {
            case (acc, (hj, i)) => acc.flatMap { l =>
              val hc = hj.hcursor
              val k = hc.get[String]("key").toOption
              val v = hc.get[String]("value").toOption.map(_.getBytes(UTF_8)).orElse(hc.get[String]("base64").toOption.flatMap(s => Try(b64.decode(s)).toOption))
              val isNull = hc.downField("value").focus.exists(_.isNull)
              k.toRight(s"headers[$i]: needs a key").map(kk => l :+ (kk -> v.getOrElse(if (isNull) null else Array.emptyByteArray)))
            }
          })
        }
        schemaId <- opt(_.focus.flatMap(_.asNumber).flatMap(_.toInt), "schemaId", "a schema id")
        record <- opt(_.focus.flatMap(_.asString), "record", "a record name")
        raw <- opt(_.focus.flatMap(_.asString).flatMap(s => Try(b64.decode(s)).toOption), "raw", "base64")
      } yield FileLine(line, partition, offset, timestamp, keyText.map(_.getBytes(UTF_8)).orElse(keyB64), headers, schemaId, record,
        c.downField("value").focus, raw)
    }
}

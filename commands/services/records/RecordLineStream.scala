package bankops.services.records

import com.fasterxml.jackson.core.{JsonParser, JsonToken}

import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64

import bankops.base.JsonInput

/** The usual record line read in one streaming pass, with no JSON tree but the value's: the hot path of restore and
  * `replay --from-file`, where a tree per line was most of their time (JFR). It reads exactly what
  * [[RecordLine.parseTree]] reads, or gives up (None) at the first thing that is not the plain shape (a number where
  * text goes, a fraction, base64 that does not decode, a duplicate key, text after the object, anything invalid):
  * the tree then reads the line, and names its fault.
  */
private[records] object RecordLineStream {
  private val base64 = Base64.getDecoder

  private final class GiveUp extends RuntimeException(null, null, false, false)
  private val giveUp = new GiveUp

  def read(text: String, line: Int): Option[RecordLine] =
    if (text.length > JsonInput.MaxChars) None
    else {
      val p = JsonInput.parser(text)
      try Some(fields(p, line))
      catch { case _: Exception => None }
      finally p.close()
    }

  private def fields(p: JsonParser, line: Int): RecordLine = {
    if (p.nextToken() != JsonToken.START_OBJECT) throw giveUp
    var topic, timestampType, keyText, record, error = Option.empty[String]
    var partition, schemaId = Option.empty[Int]
    var offset, timestamp = Option.empty[Long]
    var keyB64, raw = Option.empty[Array[Byte]]
    var headers = List.empty[(String, Array[Byte])]
    var value = Option.empty[io.circe.Json]
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      val name = p.currentName()
      val t = p.nextToken()
      name match {
        case "topic" => topic = string(p, t)
        case "timestampType" => timestampType = string(p, t)
        case "key" => keyText = string(p, t)
        case "record" => record = string(p, t)
        case "error" => error = string(p, t)
        case "partition" => partition = int(p, t)
        case "schemaId" => schemaId = int(p, t)
        case "offset" => offset = long(p, t)
        case "timestamp" => timestamp = t match {
            case JsonToken.VALUE_STRING => Some(IsoTime.parseMillis(p.getText))
            case _ => long(p, t)
          }
        case "keyBase64" => keyB64 = string(p, t).map(base64.decode)
        case "raw" => raw = string(p, t).map(base64.decode)
        case "headers" => headers = if (t == JsonToken.VALUE_NULL) Nil else headerList(p, t)
        case "value" => value = Some(JsonInput.valueAt(p, t))
        case _ => p.skipChildren()
      }
    }
    if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) throw giveUp
    RecordLine(line, topic, partition, offset, timestamp, timestampType, keyText.map(_.getBytes(UTF_8)).orElse(keyB64), headers, schemaId,
      record, value, error, raw)
  }

  private def string(p: JsonParser, t: JsonToken): Option[String] = t match {
    case JsonToken.VALUE_STRING => Some(p.getText)
    case JsonToken.VALUE_NULL => None
    case _ => throw giveUp
  }

  // An integer token only: the tree also takes 2.0 for 2, which this leaves to it.
  private def int(p: JsonParser, t: JsonToken): Option[Int] = t match {
    case JsonToken.VALUE_NUMBER_INT => Some(p.getIntValue)
    case JsonToken.VALUE_NULL => None
    case _ => throw giveUp
  }

  private def long(p: JsonParser, t: JsonToken): Option[Long] = t match {
    case JsonToken.VALUE_NUMBER_INT => Some(p.getLongValue)
    case JsonToken.VALUE_NULL => None
    case _ => throw giveUp
  }

  /** `[{"key": K, "value": V} or {"key": K, "base64": B}, ...]`, a null value kept as null. */
  private def headerList(p: JsonParser, t: JsonToken): List[(String, Array[Byte])] = {
    if (t != JsonToken.START_ARRAY) throw giveUp
    val out = List.newBuilder[(String, Array[Byte])]
    while (p.nextToken() == JsonToken.START_OBJECT) {
      var key = Option.empty[String]
      var text = Option.empty[String]
      var isNull = false
      var b64 = Option.empty[Array[Byte]]
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        val name = p.currentName()
        val v = p.nextToken()
        name match {
          case "key" if v == JsonToken.VALUE_STRING => key = Some(p.getText)
          case "value" if v == JsonToken.VALUE_STRING => text = Some(p.getText)
          case "value" if v == JsonToken.VALUE_NULL => isNull = true
          case "base64" if v == JsonToken.VALUE_STRING => b64 = Some(base64.decode(p.getText))
          case "key" | "value" | "base64" => throw giveUp
          case _ => p.skipChildren()
        }
      }
      out += key.getOrElse(throw giveUp) -> text.map(_.getBytes(UTF_8)).orElse(b64).getOrElse(if (isNull) null else Array.emptyByteArray)
    }
    if (p.currentToken() != JsonToken.END_ARRAY) throw giveUp
    out.result()
  }
}

package bankops.base

import com.fasterxml.jackson.core.{
  JsonFactory, JsonFactoryBuilder, JsonParser, JsonProcessingException, JsonToken, StreamReadConstraints, StreamReadFeature
}
import com.fasterxml.jackson.core.exc.StreamConstraintsException
import io.circe.{CursorOp, Decoder, Json, JsonNumber}

/** The one reader of JSON a person or a file hands bankops (values, record lines, offsets, contexts, topology,
  * fixtures). circe's parser keeps the last of two equal keys and recurses without bound (a deep `[[[…` is a
  * StackOverflowError); Jackson's streaming parser refuses both, and bounds the size, before circe sees a value.
  */
object JsonInput {

  /** Deeper than any record, topology or file bankops reads; deep enough for any Avro value a schema can nest. */
  val MaxDepth = 100

  /** Larger than any record Kafka takes by default (1 MiB) base64-encoded several times over. */
  val MaxChars: Int = 32 * 1024 * 1024

  private val factory: JsonFactory = new JsonFactoryBuilder()
    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MaxDepth).maxDocumentLength(MaxChars.toLong)
        .maxStringLength(MaxChars).build())
    .build()

  private val Duplicate = "Duplicate field '(.*)'".r.unanchored

  /** A streaming parser with [[parse]]'s limits (duplicate keys, depth, size), for a reader that walks a known shape
    * itself and builds a value only where it needs one ([[valueAt]]); it throws where [[parse]] returns Left.
    */
  def parser(text: String): JsonParser = factory.createParser(text)

  /** The value starting at token `t` of `p`, as [[parse]] builds it. */
  def valueAt(p: JsonParser, t: JsonToken): Json = value(p, t)

  /** One JSON value, strictly: a key twice in one object, nesting deeper than [[MaxDepth]], more than [[MaxChars]]
    * characters or text after the value is refused with one line naming the line and column. With `quiet`, a syntax
    * error does not quote the text (the file may hold a secret).
    */
  def parse(text: String, quiet: Boolean = false): Either[String, Json] =
    if (text.length > MaxChars) Left(s"longer than ${MaxChars / 1024 / 1024} MiB, the limit of one JSON document")
    else {
      val p = factory.createParser(text)
      try {
        val first = p.nextToken()
        if (first == null) Left("not JSON: no value")
        else {
          val json = value(p, first)
          if (p.nextToken() != null) Left(s"not JSON: text after the value ${at(p)}") else Right(json)
        }
      } catch {
        case e: StreamConstraintsException =>
          val what = if (e.getOriginalMessage.contains("nesting")) s"nested deeper than $MaxDepth levels, the limit of JSON input"
          else s"longer than a JSON value may be (${firstLine(e.getOriginalMessage)})"
          Left(s"$what ${at(p)}")
        case e: JsonProcessingException => e.getOriginalMessage match {
            case Duplicate(key) => Left(s"key '$key' appears twice in one object ${at(p)}")
            case m => Left(s"not JSON${if (quiet) "" else s": ${plain(m)}"} ${at(p)}")
          }
      } finally p.close()
    }

  /** A file bankops keeps that may hold secrets (contexts, the sandbox's state), decoded: an error names the line and
    * column or the path of the value, never the text (circe's messages quote the value they did not expect).
    */
  def decodeQuiet[A: Decoder](text: String): Either[String, A] =
    parse(text, quiet = true).flatMap(_.as[A].left.map(e => s"unexpected value at ${CursorOp.opsToPath(e.history)}"))

  private def at(p: JsonParser): String = {
    val l = p.currentLocation()
    s"(line ${l.getLineNr}, column ${l.getColumnNr})"
  }

  private def firstLine(m: String): String = m.linesIterator.nextOption().getOrElse(m)

  /** Jackson's message without its catalogue of what a value may be, character codes or source excerpts. */
  private def plain(m: String): String = {
    val s = firstLine(m).replaceAll("""\((\S+) \(code \d+\)\)""", "$1")
      .replace(" (JSON String, Number, Array, Object or token 'null', 'true' or 'false')", "")
      .replaceAll(""" \(start marker at .*""", "")
    s.take(1).toLowerCase + s.drop(1)
  }

  // Recursion is bounded: the parser refuses nesting beyond MaxDepth before a level is entered.
  private def value(p: JsonParser, t: JsonToken): Json = t match {
    case JsonToken.START_OBJECT =>
      val fields = Vector.newBuilder[(String, Json)]
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        val name = p.currentName()
        fields += name -> value(p, p.nextToken())
      }
      Json.fromFields(fields.result())
    case JsonToken.START_ARRAY =>
      val items = Vector.newBuilder[Json]
      var next = p.nextToken()
      while (next != JsonToken.END_ARRAY) { items += value(p, next); next = p.nextToken() }
      Json.fromValues(items.result())
    case JsonToken.VALUE_STRING => Json.fromString(p.getText)
    // An integer that fits a long is held as one: reading it as an Avro int or long is then no decimal parse (3% of
    // `replay --from-file` in a profile). It prints as it was written: Jackson takes no leading zeros or plus, and "-0",
    // the one other spelling, stays text.
    case JsonToken.VALUE_NUMBER_INT if p.getNumberType != JsonParser.NumberType.BIG_INTEGER && !(p.getLongValue == 0 && p.getText == "-0") =>
      Json.fromLong(p.getLongValue)
    case JsonToken.VALUE_NUMBER_INT | JsonToken.VALUE_NUMBER_FLOAT => Json.fromJsonNumber(JsonNumber.fromDecimalStringUnsafe(p.getText))
    case JsonToken.VALUE_TRUE => Json.True
    case JsonToken.VALUE_FALSE => Json.False
    case _ => Json.Null
  }
}

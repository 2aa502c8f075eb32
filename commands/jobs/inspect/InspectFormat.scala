package bankops.jobs.inspect

import com.monovore.decline.{Argument, Opts}
import io.circe.Json

import bankops.base.{Flags, Shell}
import bankops.services.avro.AvroJson
import bankops.services.records.{Decoded, Envelope, RecordLine}

/** How inspect prints a record: JSON lines (plain values), a readable block, or Avro's own JSON encoding. */
private[inspect] sealed trait InspectFormat
private[inspect] object InspectFormat {
  case object JsonLines extends InspectFormat
  case object Pretty extends InspectFormat
  case object AvroJsonLines extends InspectFormat

  implicit val argument: Argument[InspectFormat] = Flags.argument("json|pretty|avro-json") {
    case "json" => Right(JsonLines)
    case "pretty" => Right(Pretty)
    case "avro-json" => Right(AvroJsonLines)
    case other => Left(s"must be json, pretty or avro-json, not '$other'")
  }

  val opts: Opts[Option[InspectFormat]] =
    Flags.option[InspectFormat]("output",
      "json (one JSON object per line; default when stdout is not a terminal), pretty (default on a terminal) or avro-json.", "o").orNone

  def resolve(chosen: Option[InspectFormat], shell: Shell): InspectFormat = chosen.getOrElse(if (shell.stdoutIsTerminal) Pretty else JsonLines)

  private def only(fields: Option[FieldSelection])(j: Json): Json = fields.fold(j)(_(j))

  /** The value as the chosen format shows it. */
  def value(format: InspectFormat, d: Decoded, fields: Option[FieldSelection]): Option[Json] =
    (format, d.datum, d.schema) match {
      case (AvroJsonLines, Some(datum), Some(schema)) => Some(only(fields)(AvroJson.avroJson(datum, schema)))
      case (_, Some(datum), Some(schema)) => Some(only(fields)(d.envelope.value.getOrElse(AvroJson.plain(datum, schema))))
      case _ => None
    }

  /** Appends the record as one line (JSON) or block (pretty), newline included. */
  def renderTo(format: InspectFormat, d: Decoded, fields: Option[FieldSelection], sb: java.lang.StringBuilder): Unit = {
    format match {
      case Pretty => sb.append(pretty(d.envelope, value(format, d, fields)))
      case JsonLines if fields.isEmpty && d.envelope.value.isEmpty && d.datum.isDefined => RecordLine.writeDecoded(d, sb)
      case _ => RecordLine.write(d.envelope, value(format, d, fields), sb)
    }
    sb.append('\n')
  }

  private def pretty(e: Envelope, v: Option[Json]): String = {
    val key = e.key.fold("(no key)")(k => e.keyText.getOrElse("base64:" + java.util.Base64.getEncoder.encodeToString(k)))
    val head = s"${e.topic}/${e.partition}@${e.offset}  ${e.timestamp.fold("-")(_.toString)}  key $key  " +
      e.record.fold("UNDECODABLE")(r => s"$r (schema ${e.schemaId.getOrElse("?")})")
    val headers = e.headers.map { case (k, hv) =>
      s"  header $k = ${hv.fold("null")(b => Envelope.utf8(b).getOrElse("base64:" + java.util.Base64.getEncoder.encodeToString(b)))}"
    }
    val body = v.flatMap(_.asObject) match {
      case Some(o) =>
        val width = o.keys.map(_.length).maxOption.getOrElse(0)
        o.toList.map { case (k, j) => s"  ${k.padTo(width, ' ')}  ${j.asString.getOrElse(j.noSpaces)}" }
      case None => v.map(j => s"  ${j.noSpaces}").toList ++
          e.error.map(err => s"  error  $err").toList ++ e.raw.map(r => s"  raw    ${java.util.Base64.getEncoder.encodeToString(r)}").toList
    }
    (head :: headers ++ body).mkString("\n") + "\n"
  }
}

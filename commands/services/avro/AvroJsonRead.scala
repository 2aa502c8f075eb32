package bankops.services.avro

import io.circe.Json
import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.generic.GenericData

import java.nio.ByteBuffer
import java.time.{Instant, LocalDate, LocalTime}
import java.util.{Base64, UUID}
import scala.jdk.CollectionConverters._
import scala.util.Try

/** The inverse of [[AvroJson.plain]]: a plain JSON value (as inspect prints it, or as a person writes a
  * fixture) made into Avro generic data under a schema. Errors name the field path, what it
  * expects and what it got: `amount: expected a long, got "x"`.
  */
object AvroJsonRead {
  private type R = Either[String, Any]

  def fromPlain(json: Json, schema: Schema): R = read(json, schema, Path.Root)

  /** A plain JSON value as a framed value (Confluent wire format) under `schema`, registered as `schemaId`. */
  def framed(json: Json, schema: Schema, schemaId: Int): Either[String, Array[Byte]] =
    fromPlain(json, schema).flatMap(WireFormat.encodeFramed(_, schema, schemaId))

  /** Where a value is (`amount`, `lines[2].amount`), spelled out only for an error: a string per field of every record
    * read was a tenth of `replay --from-file`'s reading (async-profiler, 2026-11-29).
    */
  private sealed abstract class Path { def text: String }
  private object Path {
    object Root extends Path { def text = "" }
    final class Field(parent: Path, name: String) extends Path {
      def text: String = { val p = parent.text; if (p.isEmpty) name else s"$p.$name" }
    }
    final class Item(parent: Path, i: Int) extends Path { def text: String = s"${parent.text}[$i]" }
  }

  private def at(path: Path, msg: String) = Left(prefix(path) + msg)

  private def read(j: Json, s: Schema, path: Path): R = s.getType match {
    case Schema.Type.RECORD =>
      j.asObject.fold[R](Left(want(path, s"an object for ${s.getName}", j))) { o =>
        // A key the record does not have is the error named first. It is looked for only when the object holds keys that
        // no field took, or a field failed: one search per record was a twentieth of `replay --from-file`'s reading.
        def unknown: Option[R] =
          o.keys.find(k => s.getField(k) == null).map(k => at(new Path.Field(path, k), s"${s.getFullName} has no such field"))
        val record = new GenericData.Record(s)
        val fields = s.getFields
        var failed: R = null
        var present = 0
        var i = 0
        while (failed == null && i < fields.size) {
          val f = fields.get(i)
          o(f.name) match {
            case Some(v) =>
              present += 1
              read(v, f.schema, new Path.Field(path, f.name)) match {
                case Right(x) => record.put(f.pos, x)
                case left => failed = left
              }
            case None if f.hasDefaultValue => record.put(f.pos, GenericData.get().getDefaultValue(f))
            case None => failed = at(new Path.Field(path, f.name), "missing (and it has no default)")
          }
          i += 1
        }
        if (failed != null) unknown.getOrElse(failed)
        else if (present != o.size) unknown.getOrElse(Right(record))
        else Right(record)
      }
    case Schema.Type.UNION =>
      val branches = s.getTypes
      val nullable = branches.asScala.exists(_.getType == Schema.Type.NULL)
      if (j.isNull && nullable) Right(null)
      else {
        def none = Left(want(path, s"one of ${branches.asScala.map(b => Option(b.getName).getOrElse(b.getType.getName)).mkString(", ")}", j))
        // The usual union, null or one type: that type is the only one to try.
        if (nullable && branches.size == 2) {
          val b = if (branches.get(0).getType == Schema.Type.NULL) branches.get(1) else branches.get(0)
          read(j, b, path) match { case r @ Right(_) => r; case _ => none }
        } else {
          // Branches whose JSON kind matches exactly go first (a string is a string before it is base64 bytes or "1.5" a
          // double); only when none reads are the coercions tried.
          val (exact, coerced) = branches.asScala.toList.filterNot(_.getType == Schema.Type.NULL).partition(sameKind(j, _))
          (exact ++ coerced).iterator.map(b => read(j, b, path)).find(_.isRight).getOrElse(none)
        }
      }
    case Schema.Type.NULL => if (j.isNull) Right(null) else Left(want(path, "null", j))
    case Schema.Type.BOOLEAN => j.asBoolean.toRight(want(path, "true or false", j))
    case Schema.Type.STRING => j.asString.toRight(want(path, "a string", j))
    case Schema.Type.ENUM =>
      j.asString.filter(s.hasEnumSymbol).map(new GenericData.EnumSymbol(s, _))
        .toRight(want(path, s"one of ${s.getEnumSymbols.asScala.mkString(", ")}", j))
    case Schema.Type.INT => s.getLogicalType match {
        case _: LogicalTypes.Date =>
          j.asString.flatMap(d => Try(Math.toIntExact(LocalDate.parse(d).toEpochDay)).toOption).orElse(j.asNumber.flatMap(_.toInt))
            .toRight(want(path, "an ISO date", j))
        case _: LogicalTypes.TimeMillis => localTime(j).map(t => (t.toNanoOfDay / 1000000L).toInt).orElse(j.asNumber.flatMap(_.toInt))
            .toRight(want(path, "a time of day", j))
        case _ => j.asNumber.flatMap(_.toInt).toRight(want(path, "an int", j))
      }
    case Schema.Type.LONG => s.getLogicalType match {
        case _: LogicalTypes.TimestampMillis => time(j)(_.toEpochMilli).toRight(want(path, "an ISO-8601 time", j))
        case _: LogicalTypes.TimestampMicros =>
          time(j)(micros).toRight(want(path, "an ISO-8601 time", j))
        // As AvroJson.plain prints them: local timestamps are an instant's text without its zone, times of day ISO text.
        case _: LogicalTypes.LocalTimestampMillis => local(j)(_.toEpochMilli).toRight(want(path, "an ISO-8601 local time", j))
        case _: LogicalTypes.LocalTimestampMicros =>
          local(j)(micros).toRight(want(path, "an ISO-8601 local time", j))
        case _: LogicalTypes.TimeMicros => localTime(j).map(_.toNanoOfDay / 1000L).orElse(j.asNumber.flatMap(_.toLong))
            .toRight(want(path, "a time of day", j))
        case _ => j.asNumber.flatMap(_.toLong).toRight(want(path, "a long", j))
      }
    case Schema.Type.FLOAT => j.asNumber.map(_.toFloat).orElse(j.asString.flatMap(_.toFloatOption)).toRight(want(path, "a number", j))
    case Schema.Type.DOUBLE => j.asNumber.map(_.toDouble).orElse(j.asString.flatMap(_.toDoubleOption)).toRight(want(path, "a number", j))
    case Schema.Type.BYTES => bytes(j, s, path).map(ByteBuffer.wrap)
    case Schema.Type.FIXED => bytes(j, s, path).map(signExtended(_, s)).flatMap(b =>
        if (b.length == s.getFixedSize) Right(new GenericData.Fixed(s, b)) else at(path, s"expected ${s.getFixedSize} bytes, got ${b.length}"))
    case Schema.Type.ARRAY => j.asArray.fold[R](Left(want(path, "an array", j))) { xs =>
        xs.zipWithIndex.foldLeft[Either[String, List[Any]]](Right(Nil)) { case (acc, (x, i)) =>
          acc.flatMap(l => read(x, s.getElementType, new Path.Item(path, i)).map(_ :: l))
        }
          .map(l => new GenericData.Array[Any](s, l.reverse.asJava))
      }
    case Schema.Type.MAP => j.asObject.fold[R](Left(want(path, "an object", j))) { o =>
        o.toList.foldLeft[Either[String, List[(String, Any)]]](Right(Nil)) { case (acc, (k, v)) =>
          acc.flatMap(l => read(v, s.getValueType, new Path.Field(path, k)).map(k -> _ :: l))
        }
          .map(_.toMap.asJava)
      }
  }

  private def prefix(path: Path) = { val p = path.text; if (p.isEmpty) "" else s"$p: " }

  /** `amount: expected a long, got "x"`: what the schema wants and what the JSON holds, cut short when long. */
  private def want(path: Path, what: String, j: Json): String = {
    val got = j.noSpaces
    s"${prefix(path)}expected $what, got ${if (got.length > 40) got.take(37) + "..." else got}"
  }

  private def time(j: Json)(f: Instant => Long): Option[Long] =
    j.asString.flatMap(t => Try(f(Instant.parse(t))).toOption).orElse(j.asNumber.flatMap(_.toLong))

  /** A decimal's two's-complement bytes fill a fixed of any size: the sign byte repeated in front, as Avro writes them. */
  private def signExtended(b: Array[Byte], s: Schema): Array[Byte] = s.getLogicalType match {
    case _: LogicalTypes.Decimal if b.length < s.getFixedSize =>
      Array.fill[Byte](s.getFixedSize - b.length)(if (b.nonEmpty && b(0) < 0) -1 else 0) ++ b
    case _ => b
  }

  /** A local timestamp's text read as if at UTC; a JSON number is taken as is, in the type's own unit (millis or micros). */
  private def local(j: Json)(f: Instant => Long): Option[Long] =
    j.asString.flatMap(t => Try(f(Instant.parse(t + "Z"))).toOption).orElse(j.asNumber.flatMap(_.toLong))

  /** Microseconds since the epoch; an instant too far out for a long is an error, not a wrapped value. */
  private def micros(i: Instant): Long = Math.addExact(Math.multiplyExact(i.getEpochSecond, 1000000L), (i.getNano / 1000).toLong)

  /** Whether a JSON value's kind is exactly what a union branch holds, with no coercion. */
  private def sameKind(j: Json, b: Schema): Boolean = b.getType match {
    case Schema.Type.STRING | Schema.Type.ENUM => j.isString
    case Schema.Type.INT | Schema.Type.LONG | Schema.Type.FLOAT | Schema.Type.DOUBLE => j.isNumber
    case Schema.Type.BOOLEAN => j.isBoolean
    case Schema.Type.RECORD | Schema.Type.MAP => j.isObject
    case Schema.Type.ARRAY => j.isArray
    case _ => false
  }

  private def localTime(j: Json): Option[LocalTime] = j.asString.flatMap(t => Try(LocalTime.parse(t)).toOption)

  /** UUID text for a UUID fixed, an exact decimal string for decimals, base64 otherwise. */
  private def bytes(j: Json, s: Schema, path: Path): Either[String, Array[Byte]] = s.getLogicalType match {
    case d: LogicalTypes.Decimal =>
      j.asString.orElse(j.asNumber.map(_.toString)).flatMap(t => Try(new java.math.BigDecimal(t).setScale(d.getScale)).toOption)
        .toRight(want(path, s"a decimal with scale ${d.getScale}", j))
        .flatMap(bd =>
          if (bd.precision > d.getPrecision)
            at(path, s"${bd.toPlainString} has ${bd.precision} digits, more than the decimal's precision ${d.getPrecision}")
          else Right(bd.unscaledValue.toByteArray))
    case _ if AvroJson.isUuid(s) =>
      j.asString.flatMap(t => Try(UUID.fromString(t)).toOption)
        .map(u => ByteBuffer.allocate(16).putLong(u.getMostSignificantBits).putLong(u.getLeastSignificantBits).array())
        .toRight(want(path, "a UUID", j))
    case _ => j.asString.flatMap(t => Try(Base64.getDecoder.decode(t)).toOption).toRight(want(path, "base64 bytes", j))
  }
}

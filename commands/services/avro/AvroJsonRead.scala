package bankops.services.avro

import io.circe.Json
import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.generic.GenericData

import java.nio.ByteBuffer
import java.time.{Instant, LocalDate}
import java.util.{Base64, UUID}
import scala.jdk.CollectionConverters._
import scala.util.Try

/** The inverse of [[AvroJson.plain]]: a plain JSON value (as inspect prints it, or as a person writes a
  * fixture) made into Avro generic data under a schema. Errors name the field path: `amount: expected a long`.
  */
object AvroJsonRead {
  private type R = Either[String, Any]

  def fromPlain(json: Json, schema: Schema): R = read(json, schema, "")

  private def at(path: String, msg: String) = Left(if (path.isEmpty) msg else s"$path: $msg")
  private def sub(path: String, name: String) = if (path.isEmpty) name else s"$path.$name"

  private def read(j: Json, s: Schema, path: String): R = s.getType match {
    case Schema.Type.RECORD =>
      j.asObject.fold[R](at(path, s"expected an object for ${s.getName}")) { o =>
        val unknown = o.keys.filterNot(k => s.getField(k) != null).toList
        if (unknown.nonEmpty) at(sub(path, unknown.head), s"${s.getFullName} has no such field")
        else {
          val record = new GenericData.Record(s)
          s.getFields.asScala.foldLeft[Either[String, Unit]](Right(())) { (acc, f) =>
            acc.flatMap { _ =>
              o(f.name) match {
                case Some(v) => read(v, f.schema, sub(path, f.name)).map(record.put(f.pos, _))
                case None if f.hasDefaultValue => Right(record.put(f.pos, GenericData.get().getDefaultValue(f)))
                case None => at(sub(path, f.name), "missing (and it has no default)")
              }
            }
          }.map(_ => record)
        }
      }
    case Schema.Type.UNION =>
      val branches = s.getTypes.asScala.toList
      if (j.isNull && branches.exists(_.getType == Schema.Type.NULL)) Right(null)
      else branches.filterNot(_.getType == Schema.Type.NULL).iterator.map(b => read(j, b, path)).find(_.isRight)
        .getOrElse(at(path, s"fits none of ${branches.map(b => Option(b.getName).getOrElse(b.getType.getName)).mkString(", ")}"))
    case Schema.Type.NULL => if (j.isNull) Right(null) else at(path, "expected null")
    case Schema.Type.BOOLEAN => j.asBoolean.toRight(s"${prefix(path)}expected true or false")
    case Schema.Type.STRING => j.asString.toRight(s"${prefix(path)}expected a string")
    case Schema.Type.ENUM =>
      j.asString.filter(s.hasEnumSymbol).map(new GenericData.EnumSymbol(s, _))
        .toRight(s"${prefix(path)}expected one of ${s.getEnumSymbols.asScala.mkString(", ")}")
    case Schema.Type.INT => s.getLogicalType match {
        case _: LogicalTypes.Date => j.asString.flatMap(d => Try(LocalDate.parse(d).toEpochDay.toInt).toOption).orElse(j.asNumber.flatMap(_.toInt))
            .toRight(s"${prefix(path)}expected an ISO date")
        case _ => j.asNumber.flatMap(_.toInt).toRight(s"${prefix(path)}expected an int")
      }
    case Schema.Type.LONG => s.getLogicalType match {
        case _: LogicalTypes.TimestampMillis => time(j)(_.toEpochMilli).toRight(s"${prefix(path)}expected an ISO-8601 time")
        case _: LogicalTypes.TimestampMicros =>
          time(j)(i => i.getEpochSecond * 1000000L + i.getNano / 1000).toRight(s"${prefix(path)}expected an ISO-8601 time")
        case _ => j.asNumber.flatMap(_.toLong).toRight(s"${prefix(path)}expected a long")
      }
    case Schema.Type.FLOAT => j.asNumber.map(_.toFloat).orElse(j.asString.flatMap(_.toFloatOption)).toRight(s"${prefix(path)}expected a number")
    case Schema.Type.DOUBLE => j.asNumber.map(_.toDouble).orElse(j.asString.flatMap(_.toDoubleOption)).toRight(s"${prefix(path)}expected a number")
    case Schema.Type.BYTES => bytes(j, s, path).map(ByteBuffer.wrap)
    case Schema.Type.FIXED => bytes(j, s, path).flatMap(b =>
        if (b.length == s.getFixedSize) Right(new GenericData.Fixed(s, b)) else at(path, s"expected ${s.getFixedSize} bytes, got ${b.length}"))
    case Schema.Type.ARRAY => j.asArray.fold[R](at(path, "expected an array")) { xs =>
        xs.zipWithIndex.foldLeft[Either[String, List[Any]]](Right(Nil)) { case (acc, (x, i)) =>
          acc.flatMap(l => read(x, s.getElementType, s"$path[$i]").map(_ :: l))
        }
          .map(l => new GenericData.Array[Any](s, l.reverse.asJava))
      }
    case Schema.Type.MAP => j.asObject.fold[R](at(path, "expected an object")) { o =>
        o.toList.foldLeft[Either[String, List[(String, Any)]]](Right(Nil)) { case (acc, (k, v)) =>
          acc.flatMap(l => read(v, s.getValueType, sub(path, k)).map(k -> _ :: l))
        }
          .map(_.toMap.asJava)
      }
  }

  private def prefix(path: String) = if (path.isEmpty) "" else s"$path: "

  private def time(j: Json)(f: Instant => Long): Option[Long] =
    j.asString.flatMap(t => Try(f(Instant.parse(t))).toOption).orElse(j.asNumber.flatMap(_.toLong))

  /** UUID text for a UUID fixed, an exact decimal string for decimals, base64 otherwise. */
  private def bytes(j: Json, s: Schema, path: String): Either[String, Array[Byte]] = s.getLogicalType match {
    case d: LogicalTypes.Decimal =>
      j.asString.orElse(j.asNumber.map(_.toString)).flatMap(t =>
        Try(new java.math.BigDecimal(t).setScale(d.getScale).unscaledValue.toByteArray).toOption)
        .toRight(s"${prefix(path)}expected a decimal with scale ${d.getScale}")
    case _ if AvroJson.isUuid(s) =>
      j.asString.flatMap(t => Try(UUID.fromString(t)).toOption)
        .map(u => ByteBuffer.allocate(16).putLong(u.getMostSignificantBits).putLong(u.getLeastSignificantBits).array())
        .toRight(s"${prefix(path)}expected a UUID")
    case _ => j.asString.flatMap(t => Try(Base64.getDecoder.decode(t)).toOption).toRight(s"${prefix(path)}expected base64 bytes")
  }
}

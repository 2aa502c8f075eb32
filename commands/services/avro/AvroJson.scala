package bankops.services.avro

import io.circe.Json
import org.apache.avro.{LogicalTypes, Schema}
import org.apache.avro.generic.{GenericData, GenericDatumWriter, GenericFixed, GenericRecord}
import org.apache.avro.io.EncoderFactory

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import java.time.{Instant, LocalDate, LocalTime}
import java.util.{Base64, UUID}
import scala.jdk.CollectionConverters._

/** Generic Avro data as JSON. `plain` is what people read and `jq` filters: unions unwrapped,
  * enums as strings, UUIDs as text, logical types readable, other bytes base64. `avroJson` is
  * Avro's own JSON encoding (unions as `{"type": value}`), for tools that expect it.
  */
object AvroJson {

  def plain(datum: Any, schema: Schema): Json = schema.getType match {
    case Schema.Type.RECORD =>
      val r = datum.asInstanceOf[GenericRecord]
      Json.fromFields(schema.getFields.asScala.map(f => f.name -> plain(r.get(f.pos), f.schema)))
    case Schema.Type.UNION => plain(datum, schema.getTypes.get(GenericData.get().resolveUnion(schema, datum)))
    case Schema.Type.NULL => Json.Null
    case Schema.Type.BOOLEAN => Json.fromBoolean(datum.asInstanceOf[Boolean])
    case Schema.Type.STRING => Json.fromString(datum.toString)
    case Schema.Type.ENUM => Json.fromString(datum.toString)
    case Schema.Type.INT =>
      val i = datum.asInstanceOf[Int]
      schema.getLogicalType match {
        case _: LogicalTypes.Date => Json.fromString(LocalDate.ofEpochDay(i.toLong).toString)
        case _: LogicalTypes.TimeMillis => Json.fromString(LocalTime.ofNanoOfDay(i * 1000000L).toString)
        case _ => Json.fromInt(i)
      }
    case Schema.Type.LONG =>
      val l = datum.asInstanceOf[Long]
      schema.getLogicalType match {
        case _: LogicalTypes.TimestampMillis => Json.fromString(Instant.ofEpochMilli(l).toString)
        case _: LogicalTypes.TimestampMicros => Json.fromString(Instant.EPOCH.plusNanos(l * 1000L).toString)
        case _: LogicalTypes.LocalTimestampMillis => Json.fromString(Instant.ofEpochMilli(l).toString.stripSuffix("Z"))
        case _: LogicalTypes.LocalTimestampMicros => Json.fromString(Instant.EPOCH.plusNanos(l * 1000L).toString.stripSuffix("Z"))
        case _: LogicalTypes.TimeMicros => Json.fromString(LocalTime.ofNanoOfDay(l * 1000L).toString)
        case _ => Json.fromLong(l)
      }
    case Schema.Type.FLOAT => Json.fromFloat(datum.asInstanceOf[Float]).getOrElse(Json.fromString(datum.toString))
    case Schema.Type.DOUBLE => Json.fromDouble(datum.asInstanceOf[Double]).getOrElse(Json.fromString(datum.toString))
    case Schema.Type.BYTES => bytes(toArray(datum.asInstanceOf[ByteBuffer]), schema)
    case Schema.Type.FIXED => bytes(datum.asInstanceOf[GenericFixed].bytes, schema)
    case Schema.Type.ARRAY => Json.fromValues(datum.asInstanceOf[java.util.Collection[Any]].asScala.map(plain(_, schema.getElementType)))
    case Schema.Type.MAP =>
      Json.fromFields(datum.asInstanceOf[java.util.Map[Any, Any]].asScala.toList.map { case (k, v) =>
        k.toString -> plain(v, schema.getValueType)
      }.sortBy(_._1))
  }

  private val printer = io.circe.Printer.noSpaces
  private def text(s: String, sb: java.lang.StringBuilder): Unit = JsonText.string(s, sb)

  /** The same JSON as [[plain]], written straight into `sb`: the hot path of inspect's output. */
  def writePlain(datum: Any, schema: Schema, sb: java.lang.StringBuilder): Unit = schema.getType match {
    case Schema.Type.RECORD =>
      val r = datum.asInstanceOf[GenericRecord]
      sb.append('{')
      val fields = schema.getFields
      var i = 0
      while (i < fields.size) {
        val f = fields.get(i)
        if (i > 0) sb.append(',')
        text(f.name, sb); sb.append(':'); writePlain(r.get(f.pos), f.schema, sb)
        i += 1
      }
      sb.append('}')
    case Schema.Type.UNION => writePlain(datum, schema.getTypes.get(GenericData.get().resolveUnion(schema, datum)), sb)
    case Schema.Type.NULL => sb.append("null")
    case Schema.Type.STRING | Schema.Type.ENUM => text(datum.toString, sb)
    case Schema.Type.BOOLEAN => sb.append(datum.asInstanceOf[Boolean])
    case Schema.Type.INT if schema.getLogicalType == null => sb.append(datum.asInstanceOf[Int])
    case Schema.Type.LONG if schema.getLogicalType == null => sb.append(datum.asInstanceOf[Long])
    case Schema.Type.FIXED if isUuid(schema) && schema.getLogicalType == null =>
      val bb = ByteBuffer.wrap(datum.asInstanceOf[GenericFixed].bytes); sb.append('"').append(new UUID(bb.getLong, bb.getLong).toString).append('"')
    case _ => printer.unsafePrintToAppendable(plain(datum, schema), sb)
  }

  /** A fixed of 16 named Uuid/UUID, or with logicalType uuid, is a UUID; decimals are exact; the rest base64. */
  private def bytes(b: Array[Byte], schema: Schema): Json = schema.getLogicalType match {
    case d: LogicalTypes.Decimal => Json.fromString(new java.math.BigDecimal(new java.math.BigInteger(b), d.getScale).toPlainString)
    case _ if isUuid(schema) && b.length == 16 =>
      val bb = ByteBuffer.wrap(b); Json.fromString(new UUID(bb.getLong, bb.getLong).toString)
    case _ => Json.fromString(Base64.getEncoder.encodeToString(b))
  }

  def isUuid(schema: Schema): Boolean =
    schema.getType == Schema.Type.FIXED && schema.getFixedSize == 16 &&
      (schema.getName.equalsIgnoreCase("uuid") || Option(schema.getLogicalType).exists(_.getName == "uuid") ||
        schema.getProp("logicalType") == "uuid")

  private def toArray(buf: ByteBuffer): Array[Byte] = { val d = buf.duplicate(); val a = new Array[Byte](d.remaining); d.get(a); a }

  /** Avro's JSON encoding of a datum, parsed into circe's model. */
  def avroJson(datum: Any, schema: Schema): Json = {
    val out = new ByteArrayOutputStream()
    val encoder = EncoderFactory.get().jsonEncoder(schema, out)
    new GenericDatumWriter[Any](schema).write(datum, encoder)
    encoder.flush()
    io.circe.parser.parse(out.toString("UTF-8")).getOrElse(Json.fromString(out.toString("UTF-8")))
  }
}

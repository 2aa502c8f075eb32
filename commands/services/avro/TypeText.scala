package bankops.services.avro

import org.apache.avro.{JsonProperties, Schema}

import scala.jdk.CollectionConverters._

/** Avro types and default values as short text for people: `long`, `long (timestamp-millis)`, `nl.openweb.data.Uuid`,
  * `array<string>`, `[null, string]`; defaults as JSON.
  */
object TypeText {

  def of(s: Schema): String = s.getType match {
    case Schema.Type.RECORD | Schema.Type.ENUM | Schema.Type.FIXED => s.getFullName
    case Schema.Type.ARRAY => s"array<${of(s.getElementType)}>"
    case Schema.Type.MAP => s"map<${of(s.getValueType)}>"
    case Schema.Type.UNION => s.getTypes.asScala.map(of).mkString("[", ", ", "]")
    case _ => Option(s.getLogicalType).fold(s.getName)(l => s"${s.getName} (${logical(l)})")
  }

  /** A logical type with its parameters: `decimal(12,2)`, `timestamp-millis`. */
  def logical(l: org.apache.avro.LogicalType): String = l match {
    case d: org.apache.avro.LogicalTypes.Decimal => s"decimal(${d.getPrecision},${d.getScale})"
    case _ => l.getName
  }

  /** A field's default as JSON text (Avro hands it over as Java values). */
  def default(f: Schema.Field): Option[String] = Option.when(f.hasDefaultValue)(json(f.defaultVal()))

  private def json(v: Any): String = v match {
    case null => "null"
    case _: JsonProperties.Null => "null"
    case m: java.util.Map[_, _] => m.asScala.map { case (k, x) => s"${json(k.toString)}:${json(x)}" }.mkString("{", ",", "}")
    case c: java.util.Collection[_] => c.asScala.map(json).mkString("[", ",", "]")
    case s: String => io.circe.Json.fromString(s).noSpaces
    case b: Array[Byte] => io.circe.Json.fromString(new String(b, java.nio.charset.StandardCharsets.ISO_8859_1)).noSpaces
    case other => other.toString
  }
}

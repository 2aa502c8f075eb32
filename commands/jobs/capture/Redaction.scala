package bankops.jobs.capture

import org.apache.avro.Schema
import org.apache.avro.generic.GenericRecord

import java.nio.ByteBuffer
import scala.jdk.CollectionConverters._

import bankops.services.avro.WireFormat

/** `--redact FIELD`: a named field (a dotted path into nested records) masked in a decoded record, which is then encoded
  * again with the same writer schema and framed with the same id: the archive's record still decodes, and the secret
  * is not in it. Text becomes `****`, bytes empty, numbers 0; a union takes the masked value of a branch it has.
  */
private[capture] object Redaction {
  val Mask = "****"

  /** The record's bytes with `paths` masked and the text values masked (a key or header that repeats one is masked
    * too), None when it has none of them, or why it cannot be masked.
    */
  def apply(datum: Any, schema: Schema, schemaId: Int, paths: List[List[String]]): Either[String, Option[(Array[Byte], Set[String])]] =
    datum match {
      case g: GenericRecord =>
        val hidden = paths.flatMap(p => mask(g, p))
        if (hidden.isEmpty) Right(None)
        else WireFormat.encodeFramed(g, schema, schemaId).map(b => Some(b -> hidden.flatten.toSet))
          .left.map(e => s"cannot be encoded once masked: $e")
      case _ => Right(None)
    }

  /** A key or header value that repeats a masked text (an iban as a balance record's key), masked as the field is. */
  def repeated(bytes: Array[Byte], hidden: Set[String]): Array[Byte] =
    if (bytes != null && hidden.nonEmpty && hidden.contains(new String(bytes, java.nio.charset.StandardCharsets.UTF_8))) Mask.getBytes("UTF-8")
    else bytes

  /** Whether a schema has the path, as a field that can be masked (text, bytes or a number): a field no record has, or
    * one of a type that cannot be masked (an enum, a fixed, a record), is refused rather than listed as hidden.
    */
  def holds(schema: Schema, path: List[String]): Boolean = (schema.getType, path) match {
    case (Schema.Type.UNION, _) => schema.getTypes.asScala.exists(holds(_, path))
    case (Schema.Type.RECORD, name :: Nil) => Option(schema.getField(name)).exists(f => maskable(f.schema))
    case (Schema.Type.RECORD, name :: rest) => Option(schema.getField(name)).exists(f => holds(f.schema, rest))
    case _ => false
  }

  private def maskable(schema: Schema): Boolean = schema.getType match {
    case Schema.Type.STRING | Schema.Type.BYTES | Schema.Type.INT | Schema.Type.LONG | Schema.Type.FLOAT | Schema.Type.DOUBLE => true
    case Schema.Type.UNION => schema.getTypes.asScala.exists(maskable)
    case _ => false
  }

  /** Masks the field at `path`: None when the record has no value there; else the text it held, if it was text. */
  private def mask(g: GenericRecord, path: List[String]): Option[Option[String]] = path match {
    case name :: Nil =>
      Option(g.getSchema.getField(name)).flatMap(f => masked(f.schema, g.get(name))).map { v =>
        val was = g.get(name) match { case t: CharSequence => Some(t.toString); case _ => None }
        g.put(name, v); was
      }
    case name :: rest => Option(g.getSchema.getField(name)).map(_ => g.get(name)).flatMap {
        case inner: GenericRecord => mask(inner, rest)
        case _ => None
      }
    case Nil => None
  }

  private def masked(schema: Schema, current: Any): Option[Any] =
    if (current == null) None
    else schema.getType match {
      case Schema.Type.STRING => Some(Mask)
      case Schema.Type.BYTES => Some(ByteBuffer.allocate(0))
      case Schema.Type.INT => Some(0)
      case Schema.Type.LONG => Some(0L)
      case Schema.Type.FLOAT => Some(0f)
      case Schema.Type.DOUBLE => Some(0d)
      case Schema.Type.UNION => schema.getTypes.asScala.iterator.flatMap(b => masked(b, current)).nextOption()
      case _ => None
    }
}

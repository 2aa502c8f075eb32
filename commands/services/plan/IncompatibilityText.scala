package bankops.services.plan

import org.apache.avro.Schema
import org.apache.avro.SchemaCompatibility.{Incompatibility, SchemaIncompatibilityType => Kind}

import scala.util.Try

import bankops.services.avro.TypeText

/** One of Avro's incompatibilities as a sentence naming the field (by path, `meta.source`) and what changed from the
  * old schema to the new one, e.g. `field amount: type changed from long to string`.
  */
object IncompatibilityText {

  /** `newIsReader`: the check asked whether the new schema reads old data (backward), else the reverse (forward). */
  def describe(i: Incompatibility, reader: Schema, newIsReader: Boolean): String = {
    val path = fieldPath(reader, i.getLocation)
    val where = if (path.isEmpty) s"record ${reader.getFullName}" else s"field $path"
    val (before, after) = if (newIsReader) (i.getWriterFragment, i.getReaderFragment) else (i.getReaderFragment, i.getWriterFragment)
    def fromTo(what: Schema => String) = s"from ${what(before)} to ${what(after)}"
    i.getType match {
      case Kind.READER_FIELD_MISSING_DEFAULT_VALUE =>
        if (newIsReader) s"$where added without a default" else s"$where removed, and the old schema has no default for it"
      case Kind.TYPE_MISMATCH => s"$where: type changed ${fromTo(TypeText.of)}"
      case Kind.NAME_MISMATCH => s"$where: name changed ${fromTo(_.getFullName)}"
      case Kind.FIXED_SIZE_MISMATCH => s"$where: fixed size changed ${fromTo(_.getFixedSize.toString)}"
      case Kind.MISSING_ENUM_SYMBOLS =>
        if (newIsReader) s"$where: enum symbols ${i.getMessage} removed (old data may hold them)"
        else s"$where: enum symbols ${i.getMessage} added (the old schema cannot read them)"
      case Kind.MISSING_UNION_BRANCH =>
        if (newIsReader) s"$where: union type ${TypeText.of(i.getWriterFragment)} removed (old data may hold it)"
        else s"$where: union type ${TypeText.of(i.getWriterFragment)} added (the old schema cannot read it)"
      case other => s"$where: ${other.toString.toLowerCase.replace('_', ' ')} ${i.getMessage}"
    }
  }

  /** The dotted field path an Avro location (`/fields/2/type/fields/0`) points at in `root`; empty for the record. */
  def fieldPath(root: Schema, location: String): String = {
    @annotation.tailrec
    def walk(s: Schema, segments: List[String], path: List[String]): List[String] = (s.getType, segments) match {
      case (Schema.Type.RECORD, "fields" :: n :: rest) =>
        Try(s.getFields.get(n.toInt)).toOption match {
          case Some(f) => walk(f.schema, rest.dropWhile(_ == "type"), path :+ f.name)
          case None => path
        }
      case (Schema.Type.ARRAY, "items" :: rest) => walk(s.getElementType, rest, marked(path, "[]"))
      case (Schema.Type.MAP, "values" :: rest) => walk(s.getValueType, rest, marked(path, "{}"))
      case (Schema.Type.UNION, n :: rest) if n.nonEmpty && n.forall(_.isDigit) =>
        Try(s.getTypes.get(n.toInt)).toOption match {
          case Some(branch) => walk(branch, rest, path)
          case None => path
        }
      case _ => path
    }
    walk(root, location.split('/').toList.filter(_.nonEmpty), Nil).mkString(".")
  }

  /** `tags` becomes `tags[]` (an array's items), `limits{}` (a map's values). */
  private def marked(path: List[String], mark: String): List[String] = path.lastOption.fold(List(mark))(last => path.init :+ (last + mark))
}

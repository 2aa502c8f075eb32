package bankops.services.avro

import org.apache.avro.Schema

import scala.jdk.CollectionConverters._

/** The named types (records, enums, fixed) a schema defines or uses, outermost first. */
object NamedTypes {
  def of(s: Schema): List[Schema] = walk(s, Set.empty)._1

  private def walk(s: Schema, seen: Set[String]): (List[Schema], Set[String]) = s.getType match {
    case Schema.Type.RECORD if !seen(s.getFullName) =>
      s.getFields.asScala.foldLeft((List(s), seen + s.getFullName)) { case ((acc, sn), f) =>
        val (more, sn2) = walk(f.schema(), sn); (acc ++ more, sn2)
      }
    case Schema.Type.ENUM | Schema.Type.FIXED if !seen(s.getFullName) => (List(s), seen + s.getFullName)
    case Schema.Type.ARRAY => walk(s.getElementType, seen)
    case Schema.Type.MAP => walk(s.getValueType, seen)
    case Schema.Type.UNION =>
      s.getTypes.asScala.foldLeft((List.empty[Schema], seen)) { case ((acc, sn), t) => val (more, sn2) = walk(t, sn); (acc ++ more, sn2) }
    case _ => (Nil, seen)
  }

  def byName(schemas: Iterable[Schema]): Map[String, Schema] = schemas.flatMap(of).map(s => s.getFullName -> s).toMap
}

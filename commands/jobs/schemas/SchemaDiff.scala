package bankops.jobs.schemas

import org.apache.avro.Schema
import org.apache.avro.Schema.Type._

import scala.jdk.CollectionConverters._

import bankops.services.avro.TypeText

/** Pure: the field-level differences between two Avro schemas, not a text diff. Fields are matched by name (or by an
  * alias the new field gives the old name); nested records are walked by path (`meta.source`, `items[]`, `values{}`).
  * Documentation is compared only when asked: it changes no data.
  */
private[schemas] object SchemaDiff {

  def apply(before: Schema, after: Schema, docs: Boolean = false): List[SchemaChange] = new Walk(docs).types("", before, after, Set.empty)

  private final class Walk(docs: Boolean) {
    private def change(path: String, what: String, before: Option[String], after: Option[String]) = List(SchemaChange(path, what, before, after))

    private def named(s: Schema) = Set(RECORD, ENUM, FIXED)(s.getType)

    def types(path: String, a: Schema, b: Schema, seen: Set[(String, String)]): List[SchemaChange] = (a.getType, b.getType) match {
      case (x, y) if x == y && named(a) =>
        if (seen((a.getFullName, b.getFullName))) Nil else namedType(path, a, b, seen + (a.getFullName -> b.getFullName))
      case (ARRAY, ARRAY) => types(s"$path[]", a.getElementType, b.getElementType, seen)
      case (MAP, MAP) => types(s"$path{}", a.getValueType, b.getValueType, seen)
      case (UNION, UNION) =>
        val (as, bs) = (a.getTypes.asScala.toList, b.getTypes.asScala.toList)
        val branches = if (as.map(key) == bs.map(key)) Nil else change(path, "type changed", Some(TypeText.of(a)), Some(TypeText.of(b)))
        branches ++ as.flatMap(x => bs.find(y => key(y) == key(x)).toList.flatMap(y => if (named(x)) types(path, x, y, seen) else Nil))
      case _ if TypeText.of(a) != TypeText.of(b) => change(path, "type changed", Some(TypeText.of(a)), Some(TypeText.of(b)))
      case _ => Nil
    }

    /** A union branch's identity: the full name of a named type, the type's name otherwise. */
    private def key(s: Schema): String = if (named(s)) s.getFullName else TypeText.of(s)

    private def namedType(path: String, a: Schema, b: Schema, seen: Set[(String, String)]): List[SchemaChange] = {
      val kind = a.getType.getName
      val name = if (a.getFullName != b.getFullName) change(path, s"$kind name changed", Some(a.getFullName), Some(b.getFullName)) else Nil
      val aliases = sets(path, s"$kind aliases", a.getAliases.asScala.toSet, b.getAliases.asScala.toSet)
      val doc = docChange(path, s"$kind doc", a.getDoc, b.getDoc)
      val body = a.getType match {
        case RECORD => fields(path, a, b, seen)
        case ENUM =>
          sets(path, "enum symbols", a.getEnumSymbols.asScala.toSet, b.getEnumSymbols.asScala.toSet) ++
            (if (a.getEnumDefault != b.getEnumDefault) change(path, "enum default changed", Option(a.getEnumDefault), Option(b.getEnumDefault))
             else Nil)
        case _ =>
          val (la, lb) = (Option(a.getLogicalType).map(TypeText.logical), Option(b.getLogicalType).map(TypeText.logical))
          (if (a.getFixedSize != b.getFixedSize) change(path, "fixed size changed", Some(a.getFixedSize.toString), Some(b.getFixedSize.toString))
           else Nil) ++
            (if (la != lb) change(path, "type changed", Some(s"${a.getFullName} (${la.getOrElse("-")})"),
               Some(s"${b.getFullName} (${lb.getOrElse("-")})"))
             else Nil)
      }
      name ++ aliases ++ doc ++ body
    }

    private def fields(path: String, a: Schema, b: Schema, seen: Set[(String, String)]): List[SchemaChange] = {
      def at(name: String) = if (path.isEmpty) name else s"$path.$name"
      val olds = a.getFields.asScala.toList
      val matched = b.getFields.asScala.toList.map { nf =>
        nf -> Option(a.getField(nf.name)).orElse(olds.find(of => nf.aliases.contains(of.name)))
      }
      val added = matched.collect { case (nf, None) =>
        SchemaChange(at(nf.name), if (nf.hasDefaultValue) "added" else "added without a default", None, Some(withDefault(nf)))
      }
      val removed =
        olds.filterNot(of => matched.exists(_._2.contains(of))).map(of => SchemaChange(at(of.name), "removed", Some(withDefault(of)), None))
      val changed = matched.collect { case (nf, Some(of)) =>
        val p = at(nf.name)
        (if (of.name != nf.name) change(p, "renamed (by alias)", Some(of.name), Some(nf.name)) else Nil) ++
          types(p, of.schema, nf.schema, seen) ++ defaults(p, TypeText.default(of), TypeText.default(nf)) ++
          sets(p, "aliases", of.aliases.asScala.toSet, nf.aliases.asScala.toSet) ++ docChange(p, "doc", of.doc, nf.doc) ++
          (if (of.order != nf.order) change(p, "order changed", Some(of.order.toString.toLowerCase), Some(nf.order.toString.toLowerCase))
           else Nil)
      }.flatten
      removed ++ changed ++ added
    }

    private def withDefault(f: Schema.Field): String = s"${TypeText.of(f.schema)}${TypeText.default(f).fold("")(d => s", default $d")}"

    private def defaults(path: String, a: Option[String], b: Option[String]): List[SchemaChange] = (a, b) match {
      case (None, Some(_)) => change(path, "default added", None, b)
      case (Some(_), None) => change(path, "default removed", a, None)
      case (Some(x), Some(y)) if x != y => change(path, "default changed", a, b)
      case _ => Nil
    }

    private def sets(path: String, what: String, a: Set[String], b: Set[String]): List[SchemaChange] = {
      def show(s: Set[String]) = Option.when(s.nonEmpty)(s.toList.sorted.mkString(", "))
      show(a -- b).toList.map(r => SchemaChange(path, s"$what removed", Some(r), None)) ++
        show(b -- a).toList.map(x => SchemaChange(path, s"$what added", None, Some(x)))
    }

    private def docChange(path: String, what: String, a: String, b: String): List[SchemaChange] =
      if (!docs || Option(a) == Option(b)) Nil
      else change(path, s"$what changed", Some(Option(a).getOrElse("none")), Some(Option(b).getOrElse("none")))
  }
}

package bankops.jobs.schemas

import io.circe.{Encoder, Json}
import io.circe.syntax._

/** One field-level difference between two schemas: where (a dotted field path, empty for the top record), what kind of
  * change, and the value before and after when the change has them.
  */
private[schemas] final case class SchemaChange(path: String, change: String, before: Option[String], after: Option[String]) {
  def where: String = if (path.isEmpty) "record" else s"field $path"

  def describe: String = (before, after) match {
    case (Some(b), Some(a)) => s"$where: $change from $b to $a"
    case (Some(b), None) => s"$where: $change ($b)"
    case (None, Some(a)) => s"$where: $change ($a)"
    case (None, None) => s"$where: $change"
  }
}

private[schemas] object SchemaChange {
  implicit val encoder: Encoder[SchemaChange] = Encoder.instance(c =>
    Json.obj("path" -> c.path.asJson, "change" -> c.change.asJson, "before" -> c.before.asJson, "after" -> c.after.asJson))
}

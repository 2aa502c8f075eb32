package bankops.services.contracts

import io.circe.{Json, JsonObject}

/** The topology parsers' field readers: every error names the path inside the file (`topics.h.partitions: ...`). */
private[contracts] object JsonFields {
  type R[A] = Either[String, A]

  def obj(at: String, json: Json, allowed: Set[String], required: Set[String], anyKey: Boolean = false): R[JsonObject] = {
    val where = if (at.isEmpty) "top level" else at
    json.asObject.toRight(s"$where: must be an object").flatMap { o =>
      val unknown = if (anyKey) Nil else o.keys.filterNot(allowed).toList
      val missing = required.filterNot(o.contains).toList.sorted
      unknown.headOption.map(k => s"${prefix(at)}$k: unknown key (expected ${allowed.toList.sorted.mkString(", ")})")
        .orElse(missing.headOption.map(k => s"${prefix(at)}$k: missing"))
        .toLeft(o)
    }
  }

  def prefix(at: String): String = if (at.isEmpty) "" else s"$at."

  def str(at: String, json: Json): R[String] = json.asString.filter(_.trim.nonEmpty).toRight(s"$at: must be a non-empty string")

  def int(at: String, json: Json): R[Int] = json.asNumber.flatMap(_.toInt).toRight(s"$at: must be a whole number")

  def list(at: String, json: Json): R[List[Json]] = json.asArray.map(_.toList).toRight(s"$at: must be a list")
}

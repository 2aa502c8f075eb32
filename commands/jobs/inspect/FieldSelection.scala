package bankops.jobs.inspect

import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

/** `--fields a,b.c`: the parts of a decoded value to keep, each a path of field names; what is kept keeps its nesting
  * (`b.c` gives `{"b": {"c": ...}}`) and the value's field order.
  */
private[inspect] final case class FieldSelection(paths: List[List[String]]) {
  def heads: Set[String] = paths.map(_.head).toSet

  def apply(value: Json): Json = value.asObject.fold(value)(_ => FieldSelection.keep(value, paths).getOrElse(Json.obj()))
}

private[inspect] object FieldSelection {
  private val Name = "[A-Za-z_][A-Za-z0-9_]*".r

  def parse(s: String): Either[String, FieldSelection] = {
    val items = s.split(",", -1).toList.map(_.trim)
    items.traverse { p =>
      val names = p.split("\\.", -1).toList
      if (p.isEmpty) Left(s"--fields '$s': an empty field name (FIELD[,FIELD.SUBFIELD...])")
      else if (names.forall(Name.matches)) Right(names)
      else Left(s"--fields '$s': '$p' is not a field path (Avro field names joined by dots, e.g. amount or meta.source)")
    }.map(ps => FieldSelection(ps.distinct))
  }

  val opts: Opts[Option[FieldSelection]] =
    Opts.option[String]("fields", "Keep only these value fields (comma-separated; a.b for a nested field).", metavar = "A,B.C")
      .mapValidated(parse(_).toValidatedNel).orNone

  /** The parts of `j` the paths name; None when none of them is there. */
  private def keep(j: Json, paths: List[List[String]]): Option[Json] =
    if (paths.exists(_.isEmpty)) Some(j)
    else j.asObject.flatMap { o =>
      val kept = o.toList.flatMap { case (k, v) =>
        val below = paths.collect { case `k` :: rest => rest }
        if (below.isEmpty) None else keep(v, below).map(k -> _)
      }
      if (kept.isEmpty) None else Some(Json.fromFields(kept))
    }
}

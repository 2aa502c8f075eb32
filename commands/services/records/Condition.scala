package bankops.services.records

import io.circe.Json

/** `--where` conditions: `field=value`, `field!=value`, and numeric `<`, `>`, `<=`, `>=`; a field may be a dotted path. */
final case class Condition(path: List[String], op: String, operand: String) {
  private lazy val number = scala.util.Try(BigDecimal(operand)).toOption

  def matches(value: Json): Boolean =
    path.foldLeft(Option(value))((j, k) => j.flatMap(_.asObject).flatMap(_(k))).exists { v =>
      val asText = v.asString.orElse(if (v.isNull) Some("null") else Some(v.noSpaces))
      val asNumber = v.asNumber.flatMap(_.toBigDecimal).orElse(v.asString.flatMap(s => scala.util.Try(BigDecimal(s)).toOption))
      op match {
        case "=" => asText.contains(operand) || (number.isDefined && asNumber == number)
        case "!=" => !(asText.contains(operand) || (number.isDefined && asNumber == number))
        case _ => (asNumber, number) match {
            case (Some(a), Some(b)) => op match { case "<" => a < b; case ">" => a > b; case "<=" => a <= b; case _ => a >= b }
            case _ => false
          }
      }
    }
}

object Condition {
  private val Expr = """^([A-Za-z_][A-Za-z0-9_.]*)\s*(!=|<=|>=|=|<|>)\s*(.*)$""".r

  def parse(s: String): Either[String, Condition] = s match {
    case Expr(field, op, operand) if Set("<", ">", "<=", ">=")(op) && scala.util.Try(BigDecimal(operand.trim)).isFailure =>
      Left(s"'$s': $op needs a number, not '${operand.trim}'")
    case Expr(field, op, operand) => Right(Condition(field.split('.').toList, op, operand.trim))
    case _ => Left(s"'$s' is not FIELD=VALUE, FIELD!=VALUE or FIELD<|>|<=|>=NUMBER")
  }
}

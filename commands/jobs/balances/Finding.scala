package bankops.jobs.balances

import io.circe.Json
import io.circe.syntax._

/** One disagreement between Kafka and PostgreSQL, or a rule an account breaks. */
sealed abstract class Finding(val kind: String) {
  def iban: String
  def detail: String
  def fields: List[(String, Json)]
  def json: Json = Json.fromFields(List("finding" -> kind.asJson, "iban" -> iban.asJson) ++ fields)
}

object Finding {
  final case class DuplicateIban(iban: String, rows: Int) extends Finding("duplicate-iban") {
    def detail = s"$rows rows of the balance table hold this number (their owners' tokens may spend each other's money)"
    def fields = List("rows" -> rows.asJson)
  }
  final case class AmountMismatch(iban: String, db: Long, kafka: Long) extends Finding("amount-mismatch") {
    def detail = s"database $db, last new_balance $kafka (difference ${db - kafka})"
    def fields = List("db" -> db.asJson, "kafka" -> kafka.asJson)
  }
  final case class ChainBreak(iban: String, b: Break) extends Finding("chain-break") {
    def detail = s"partition ${b.partition} offset ${b.offset}: new_balance ${b.actual}, the chain gives ${b.expected}"
    def fields = List("partition" -> b.partition.asJson, "offset" -> b.offset.asJson, "expected" -> b.expected.asJson, "actual" -> b.actual.asJson)
  }
  final case class MissingInDb(iban: String, kafka: Long, events: Long) extends Finding("missing-in-db") {
    def detail = s"$events events (last new_balance $kafka), no row in the database"
    def fields = List("kafka" -> kafka.asJson, "events" -> events.asJson)
  }
  final case class MissingEvents(iban: String, db: Long, initial: Long) extends Finding("missing-events") {
    def detail = s"database $db, no events (an account without events holds $initial)"
    def fields = List("db" -> db.asJson, "initial" -> initial.asJson)
  }
  final case class BelowLimit(iban: String, amount: Long, lmt: Long) extends Finding("below-limit") {
    def detail = s"amount $amount below its limit $lmt"
    def fields = List("amount" -> amount.asJson, "lmt" -> lmt.asJson)
  }
  final case class InvalidIban(iban: String, where: String) extends Finding("invalid-iban") {
    def detail = s"not an account number of this bank (in $where)"
    def fields = List("where" -> where.asJson)
  }
  final case class Undecodable(partition: Int, offset: Long, reason: String) extends Finding("undecodable") {
    def iban = ""
    def detail = s"partition $partition offset $offset: $reason"
    def fields = List("partition" -> partition.asJson, "offset" -> offset.asJson, "reason" -> reason.asJson)
  }

  val kinds: List[String] =
    List("duplicate-iban", "amount-mismatch", "chain-break", "missing-in-db", "missing-events", "below-limit", "invalid-iban", "undecodable")
}

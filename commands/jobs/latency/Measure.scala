package bankops.jobs.latency

/** What a probe times, from sending its deposit: its feedback on `command_feedback`, its BalanceChanged on
  * `balance_changed`, and the balance in `balance.amount` showing it.
  */
sealed abstract class Measure(val name: String, val describe: String)

object Measure {
  case object Feedback extends Measure("feedback", "MoneyTransferConfirmed on the feedback topic")
  case object Balance extends Measure("balance", "BalanceChanged on the balance topic")
  case object Db extends Measure("db", "balance.amount in PostgreSQL")
  val all: List[Measure] = List(Feedback, Balance, Db)
}

package bankops.services.bank

/** The names the bank's services meet under: its topics (as schemas/topology.json declares them) and the handler's
  * consumer group. Every job's default comes from here, so a renamed topic is one change.
  */
object BankNames {
  val Commands = "commands"
  val Feedback = "command_feedback"
  val BalanceChanged = "balance_changed"
  val Heartbeat = "heartbeat"
  /** Commands the handler cannot read, kept with where they came from. */
  val DeadLetters = "commands.dlq"
  val HandlerGroup = "bankops-command-handler"
  /** The table of accounts ([[BankTables]]), which `balances validate` compares with the chains on Kafka. */
  val BalanceTable = "balance"
}

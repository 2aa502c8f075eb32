package bankops.services.bank

/** The bank's topics by role, each defaulting to its name in [[BankNames]]: a job that talks to the bank holds one of
  * these, built by name or refined with `copy`, instead of three or four topic strings in a row.
  */
final case class BankTopics(commands: String = BankNames.Commands, feedback: String = BankNames.Feedback,
                            balance: String = BankNames.BalanceChanged, heartbeat: String = BankNames.Heartbeat)

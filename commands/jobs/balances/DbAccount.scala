package bankops.jobs.balances

/** A row of the `balance` table: what the command handler holds. `rows` > 1: that many rows hold the number (a table
  * without the handler's unique index), and the first one read is compared.
  */
private[balances] final case class DbAccount(iban: String, amount: Long, lmt: Long, rows: Int = 1)

package bankops.jobs.balances

/** A row of the `balance` table: what the command handler holds. */
final case class DbAccount(iban: String, amount: Long, lmt: Long)

package bankops.jobs.balances

import bankops.services.bank.BankRules

/** Where an account's chain first broke: the event at `offset` has `actual` where the chain says `expected`. */
private[balances] final case class Break(partition: Int, offset: Long, expected: Long, actual: Long)

/** One account's BalanceChanged events folded: how many, the last new_balance, the first break. */
private[balances] final case class AccountChain(events: Long, last: Long, firstBreak: Option[Break]) {

  /** `new_balance[n] = new_balance[n-1] + changed_by[n]`; after a break the chain continues from the event's own figure. */
  def add(newBalance: Long, changedBy: Long, partition: Int, offset: Long): AccountChain = {
    val expected = last + changedBy
    AccountChain(events + 1, newBalance,
      firstBreak.orElse(if (newBalance != expected) Some(Break(partition, offset, expected, newBalance)) else None))
  }
}

private[balances] object AccountChain {
  /** Every account starts at 0, the seeded account at its seeded amount. */
  def initial(iban: String): Long = if (iban == BankRules.SeededIban) BankRules.SeededAmount else 0L
  def start(iban: String): AccountChain = AccountChain(0, initial(iban), None)
}

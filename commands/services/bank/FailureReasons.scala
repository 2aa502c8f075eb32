package bankops.services.bank

/** The reasons the bank gives in MoneyTransferFailed and AccountCreationFailed, word for word as the original handler
  * gave them (clients match on them), plus the three it lacked.
  */
object FailureReasons {
  val FromInvalid = "from is invalid"
  val SameAccounts = "from and to can't be same for transfer"
  val InvalidToken = "invalid token"
  val InsufficientFunds = "insufficient funds"
  val BothUnknown = "both to and from not known at this bank"
  val IbanExists = "generated iban already exists, try again"
  /** Not in the original (whose longs wrapped around): a balance that would leave the range of a bigint. */
  val OutOfRange = "amount out of range"
  /** Not in the original, which never checked: `cash` with -500 drained an account without its token. */
  val NotPositive = "amount must be positive"
  /** Not in the original: a description or an outside `to` too long for the BalanceChanged that copies it to be
    * published ([[BankRules.MaxTextBytes]]); without it one such command stopped the bank.
    */
  val TextTooLong = "description or to longer than 65536 bytes"
}

package bankops.services.bank

import vulcan.Codec

/** The bank's eight record types by simple name, with their codecs. */
object BankRecords {
  val codecs: Map[String, Codec[_]] = Map(
    "Heartbeat" -> Heartbeat.codec,
    "ConfirmAccountCreation" -> ConfirmAccountCreation.codec,
    "AccountCreationConfirmed" -> AccountCreationConfirmed.codec,
    "AccountCreationFailed" -> AccountCreationFailed.codec,
    "ConfirmMoneyTransfer" -> ConfirmMoneyTransfer.codec,
    "MoneyTransferConfirmed" -> MoneyTransferConfirmed.codec,
    "MoneyTransferFailed" -> MoneyTransferFailed.codec,
    "BalanceChanged" -> BalanceChanged.codec
  )
}

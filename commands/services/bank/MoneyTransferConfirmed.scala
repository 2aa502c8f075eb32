package bankops.services.bank

import vulcan.Codec

import java.util.UUID

final case class MoneyTransferConfirmed(id: UUID)

object MoneyTransferConfirmed {
  import BankTypes._
  implicit val codec: Codec[MoneyTransferConfirmed] = Codec.record[MoneyTransferConfirmed]("MoneyTransferConfirmed", BankTypes.Namespace) { field =>
    field("id", _.id).map(MoneyTransferConfirmed(_))
  }
}

package bankops.services.bank

import cats.syntax.all._
import vulcan.Codec

import java.util.UUID

final case class MoneyTransferFailed(id: UUID, reason: String)

object MoneyTransferFailed {
  import BankTypes._
  implicit val codec: Codec[MoneyTransferFailed] = Codec.record[MoneyTransferFailed]("MoneyTransferFailed", BankTypes.Namespace) { field =>
    (field("id", _.id), field("reason", _.reason)).mapN(MoneyTransferFailed.apply)
  }
}

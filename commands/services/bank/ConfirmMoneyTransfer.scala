package bankops.services.bank

import cats.syntax.all._
import vulcan.Codec

import java.util.UUID

final case class ConfirmMoneyTransfer(id: UUID, token: String, amount: Long, from: String, to: String, description: String)

object ConfirmMoneyTransfer {
  import BankTypes._
  implicit val codec: Codec[ConfirmMoneyTransfer] = Codec.record[ConfirmMoneyTransfer]("ConfirmMoneyTransfer", BankTypes.Namespace) { field =>
    (field("id", _.id), field("token", _.token), field("amount", _.amount), field("from", _.from), field("to", _.to),
      field("description", _.description)).mapN(ConfirmMoneyTransfer.apply)
  }
}

package bankops.services.bank

import cats.syntax.all._
import vulcan.Codec

import java.util.UUID

final case class AccountCreationFailed(id: UUID, reason: String)

object AccountCreationFailed {
  import BankTypes._
  implicit val codec: Codec[AccountCreationFailed] = Codec.record[AccountCreationFailed]("AccountCreationFailed", BankTypes.Namespace) { field =>
    (field("id", _.id), field("reason", _.reason)).mapN(AccountCreationFailed.apply)
  }
}

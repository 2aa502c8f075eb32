package bankops.services.bank

import cats.syntax.all._
import vulcan.Codec

import java.util.UUID

final case class AccountCreationConfirmed(id: UUID, iban: String, token: String, aType: Atype)

object AccountCreationConfirmed {
  import BankTypes._
  implicit val codec: Codec[AccountCreationConfirmed] = Codec.record[AccountCreationConfirmed]("AccountCreationConfirmed", BankTypes.Namespace) {
    field =>
      (field("id", _.id), field("iban", _.iban), field("token", _.token), field("a_type", _.aType)).mapN(AccountCreationConfirmed.apply)
  }
}

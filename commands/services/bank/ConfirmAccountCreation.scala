package bankops.services.bank

import cats.syntax.all._
import vulcan.Codec

import java.util.UUID

final case class ConfirmAccountCreation(id: UUID, aType: Atype)

object ConfirmAccountCreation {
  import BankTypes._
  implicit val codec: Codec[ConfirmAccountCreation] = Codec.record[ConfirmAccountCreation]("ConfirmAccountCreation", BankTypes.Namespace) { field =>
    (field("id", _.id), field("a_type", _.aType)).mapN(ConfirmAccountCreation.apply)
  }
}

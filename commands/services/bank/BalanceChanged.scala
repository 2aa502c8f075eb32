package bankops.services.bank

import cats.syntax.all._
import vulcan.Codec

final case class BalanceChanged(iban: String, newBalance: Long, changedBy: Long, fromTo: String, description: String)

object BalanceChanged {
  implicit val codec: Codec[BalanceChanged] = Codec.record[BalanceChanged]("BalanceChanged", BankTypes.Namespace) { field =>
    (field("iban", _.iban), field("new_balance", _.newBalance), field("changed_by", _.changedBy), field("from_to", _.fromTo),
      field("description", _.description)).mapN(BalanceChanged.apply)
  }
}

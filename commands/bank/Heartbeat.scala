package bankops.bank

import vulcan.Codec

final case class Heartbeat(beat: Long)

object Heartbeat {
  implicit val codec: Codec[Heartbeat] = Codec.record[Heartbeat]("Heartbeat", BankTypes.Namespace) { field =>
    field("beat", _.beat).map(Heartbeat(_))
  }
}

package bankops.services.bank

import vulcan.{AvroError, Codec}

import java.nio.ByteBuffer
import java.util.UUID

/** The named types the bank's records share: `Uuid` (fixed 16) and `Atype`. */
object BankTypes {
  val Namespace = "nl.openweb.data"

  implicit val uuidCodec: Codec[UUID] = Codec.fixed[UUID](
    "Uuid", Namespace, 16,
    u => ByteBuffer.allocate(16).putLong(u.getMostSignificantBits).putLong(u.getLeastSignificantBits).array(),
    b =>
      if (b.length != 16) Left(AvroError(s"Uuid needs 16 bytes, got ${b.length}"))
      else { val bb = ByteBuffer.wrap(b); Right(new UUID(bb.getLong, bb.getLong)) }
  )
}

sealed abstract class Atype(val name: String)
object Atype {
  case object Auto extends Atype("AUTO")
  case object Manual extends Atype("MANUAL")
  val values: List[Atype] = List(Auto, Manual)

  implicit val codec: Codec[Atype] = Codec.enumeration[Atype](
    "Atype", BankTypes.Namespace, values.map(_.name), _.name,
    s => values.find(_.name == s).toRight(AvroError(s"unknown Atype $s"))
  )
}

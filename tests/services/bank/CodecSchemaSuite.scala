package bankops.services.bank

import org.apache.avro.{Schema, SchemaNormalization}

import java.util.UUID

import bankops.support.Repo

/** The `.avsc` files are the contract: each codec's schema must equal its file in parsing canonical form. */
class CodecSchemaSuite extends munit.FunSuite {

  private def canonical(s: Schema): String = SchemaNormalization.toParsingForm(s)

  /** The bank's eight record types by simple name, with their codecs. */
  private val codecs: Map[String, vulcan.Codec[_]] = Map(
    "Heartbeat" -> Heartbeat.codec,
    "ConfirmAccountCreation" -> ConfirmAccountCreation.codec,
    "AccountCreationConfirmed" -> AccountCreationConfirmed.codec,
    "AccountCreationFailed" -> AccountCreationFailed.codec,
    "ConfirmMoneyTransfer" -> ConfirmMoneyTransfer.codec,
    "MoneyTransferConfirmed" -> MoneyTransferConfirmed.codec,
    "MoneyTransferFailed" -> MoneyTransferFailed.codec,
    "BalanceChanged" -> BalanceChanged.codec
  )

  codecs.toList.sortBy(_._1).foreach { case (name, codec) =>
    test(s"$name: codec schema equals schemas/$name.avsc") {
      val file = new Schema.Parser().parse(os.read(Repo.root / "schemas" / s"$name.avsc"))
      val fromCodec = codec.schema.fold(e => fail(e.message), identity)
      assertEquals(canonical(fromCodec), canonical(file))
      assertEquals(fromCodec.getFullName, s"nl.openweb.data.$name")
    }
  }

  test("every .avsc in schemas/ has a codec") {
    val files = os.list(Repo.root / "schemas").filter(_.ext == "avsc").map(_.baseName).toSet
    assertEquals(files, codecs.keySet)
  }

  test("a transfer survives Avro binary encoding with its Uuid as 16 fixed bytes") {
    val t = ConfirmMoneyTransfer(UUID.randomUUID(), "12345678901234567890", 1050L, "cash", "NL66OPEN0000000000", "deposit")
    val codec = ConfirmMoneyTransfer.codec
    val bytes = vulcan.Codec.toBinary(t)(codec).fold(e => fail(e.message), identity)
    val schema = codec.schema.fold(e => fail(e.message), identity)
    assertEquals(vulcan.Codec.fromBinary[ConfirmMoneyTransfer](bytes, schema)(codec), Right(t))
    val id = java.nio.ByteBuffer.allocate(16).putLong(t.id.getMostSignificantBits).putLong(t.id.getLeastSignificantBits).array()
    assertEquals(bytes.take(16).toSeq, id.toSeq)
  }
}

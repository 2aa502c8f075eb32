package bankops.services.avro

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericDatumReader, GenericRecord}
import org.scalacheck.{Arbitrary, Gen, Prop}
import vulcan.Codec

import java.util.UUID

import bankops.services.bank._

class WireFormatSuite extends bankops.support.PropertySuite {

  private def schemaOf[A](implicit c: Codec[A]): Schema = c.schema.fold(e => throw new IllegalStateException(e.message), identity)
  private def writers[A: Codec](id: Int): Int => Option[Schema] = i => if (i == id) Some(schemaOf[A]) else None
  /** vulcan's own encoding, framed: the reference the reusable writers are held to. */
  private def encode[A: Codec](id: Int, a: A): Either[vulcan.AvroError, Array[Byte]] = Codec.toBinary(a).map(WireFormat.frame(id, _))
  private def decode[A: Codec](bytes: Array[Byte], writerSchema: Int => Option[Schema]): Either[DecodeError, A] =
    new WireFormat.Reader[A].apply(bytes, writerSchema)

  private val text: Gen[String] = Gen.oneOf(Gen.alphaNumStr, Gen.asciiPrintableStr, Gen.const("ünïcødé €"))
  private implicit val transfers: Arbitrary[ConfirmMoneyTransfer] = Arbitrary(for {
    id <- Gen.uuid; token <- Gen.listOfN(20, Gen.numChar).map(_.mkString); amount <- Arbitrary.arbitrary[Long]
    from <- text; to <- text; d <- text
  } yield ConfirmMoneyTransfer(id, token, amount, from, to, d))
  private implicit val balances: Arbitrary[BalanceChanged] = Arbitrary(for {
    iban <- text; nb <- Arbitrary.arbitrary[Long]; cb <- Arbitrary.arbitrary[Long]; ft <- text; d <- text
  } yield BalanceChanged(iban, nb, cb, ft, d))
  private implicit val creations: Arbitrary[ConfirmAccountCreation] =
    Arbitrary(Gen.zip(Gen.uuid, Gen.oneOf(Atype.values)).map { case (u, a) => ConfirmAccountCreation(u, a) })

  private def roundTrip[A: Codec: Arbitrary](name: String): Unit =
    property(s"$name: typed encode then decode gives the value back, under any schema id") {
      Prop.forAll(Arbitrary.arbitrary[A], Gen.chooseNum(0, Int.MaxValue)) { (a, id) =>
        val bytes = encode(id, a).fold(e => throw new IllegalStateException(e.message), identity)
        assertEquals(bytes(0), 0.toByte)
        assertEquals(java.nio.ByteBuffer.wrap(bytes, 1, 4).getInt, id)
        assertEquals(decode[A](bytes, writers[A](id)), Right(a))
      }
    }

  roundTrip[ConfirmMoneyTransfer]("ConfirmMoneyTransfer")
  roundTrip[BalanceChanged]("BalanceChanged")
  roundTrip[ConfirmAccountCreation]("ConfirmAccountCreation")

  property("generic encode and typed decode agree, and typed encode decodes generically") {
    Prop.forAll { (t: BalanceChanged) =>
      val schema = schemaOf[BalanceChanged]
      val record = new GenericData.Record(schema)
      record.put("iban", t.iban); record.put("new_balance", t.newBalance); record.put("changed_by", t.changedBy)
      record.put("from_to", t.fromTo); record.put("description", t.description)
      val generic = WireFormat.frame(7, WireFormat.encodeGeneric(record, schema).fold(sys.error, identity))
      assertEquals(decode[BalanceChanged](generic, writers[BalanceChanged](7)), Right(t))
      val typed = encode(7, t).toOption.get
      assert(java.util.Arrays.equals(typed, generic))
      val back = WireFormat.decodeFramed(typed, 7, new GenericDatumReader[Any](schema)).map(_.asInstanceOf[GenericRecord])
      assertEquals(back.map(_.get("new_balance")), Right(t.newBalance: Any))
    }
  }

  property("the decoder never throws, whatever the bytes") {
    Prop.forAll { (bytes: Array[Byte]) =>
      val framed = Array[Byte](0, 0, 0, 0, 1) ++ bytes
      val result = scala.util.Try(decode[ConfirmMoneyTransfer](framed, writers[ConfirmMoneyTransfer](1)))
      assert(result.isSuccess, s"threw on ${bytes.toList}: $result")
    }
  }

  property("the reusable writers encode byte for byte as the codec does (Heartbeat's hand-filled one too)") {
    val transferWriter = WireFormat.Writer[ConfirmMoneyTransfer](9)
    val beats = Heartbeat.writer(3)
    Prop.forAll { (t: ConfirmMoneyTransfer, beat: Long) =>
      assertEquals(transferWriter(t).map(_.toList), encode(9, t).map(_.toList))
      assertEquals(beats(Heartbeat(beat)).map(_.toList), encode(3, Heartbeat(beat)).map(_.toList))
    }
  }

  property("the shared typed reader decodes every value, unknown ids included") {
    val reader = new WireFormat.Reader[BalanceChanged]
    Prop.forAll { (t: BalanceChanged) =>
      val bytes = encode(11, t).toOption.get
      assertEquals(reader(bytes, writers[BalanceChanged](11)), Right(t))
      assertEquals(reader(WireFormat.frame(12, bytes.drop(5)), _ => None), Left(DecodeError.UnknownSchemaId(12, "not resolved")))
    }
  }

  test("bad frames give typed errors") {
    val ok = encode(3, Heartbeat(42L)).toOption.get
    assertEquals(WireFormat.schemaIdOf(Array[Byte](0, 0, 1)), Left(DecodeError.NotFramed("3 bytes, shorter than the 5-byte header")))
    assertEquals(WireFormat.schemaIdOf(null), Left(DecodeError.NotFramed("no value (tombstone)")))
    assertEquals(WireFormat.schemaIdOf("hello world".getBytes).left.map(_.reason), Left("first byte is 0x68, not the magic byte 0x00"))
    assertEquals(decode[Heartbeat](ok, _ => None), Left(DecodeError.UnknownSchemaId(3, "not resolved")))
    assert(decode[Heartbeat](ok :+ 1.toByte, writers[Heartbeat](3)).left.exists(_.reason.contains("bytes left over")))
    val truncated = encode(3, ConfirmMoneyTransfer(UUID.randomUUID(), "t", 1, "a", "b", "c")).toOption.get.dropRight(3)
    assert(decode[ConfirmMoneyTransfer](truncated, writers[ConfirmMoneyTransfer](3)).left.exists(_.isInstanceOf[DecodeError.Corrupt]))
  }

  test("a reader schema resolves an older writer (schema evolution)") {
    val v2 = new Schema.Parser().parse("""{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data","fields":[
      {"name":"beat","type":"long"},{"name":"node","type":"string","default":"n/a"}]}""")
    val old = encode(1, Heartbeat(5)).toOption.get
    val r = WireFormat.decodeFramed(old, 1, new GenericDatumReader[Any](schemaOf[Heartbeat], v2)).map(_.asInstanceOf[GenericRecord])
    assertEquals(r.map(_.get("node").toString), Right("n/a"))
  }
}

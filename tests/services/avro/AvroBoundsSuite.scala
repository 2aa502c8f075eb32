package bankops.services.avro

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericDatumReader, GenericRecord}
import org.apache.avro.io.DecoderFactory

import scala.jdk.CollectionConverters._
import scala.util.Try

import bankops.support.Seeded

/** The admission check before Avro's reader: every value Avro wrote is admitted whatever its shape (nested records,
  * unions, arrays and maps in blocks, enums, fixed), and every length, count or index that outruns the bytes present
  * is refused naming the field, whatever mutation made it.
  */
class AvroBoundsSuite extends munit.FunSuite with Seeded {
  private val schema = new Schema.Parser().parse(
    """{"type": "record", "name": "Outer", "fields": [
      |  {"name": "id", "type": {"type": "fixed", "name": "Id", "size": 4}},
      |  {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B", "C"]}},
      |  {"name": "note", "type": ["null", "string"]},
      |  {"name": "flag", "type": "boolean"},
      |  {"name": "ratio", "type": "double"},
      |  {"name": "share", "type": "float"},
      |  {"name": "blob", "type": "bytes"},
      |  {"name": "tags", "type": {"type": "array", "items": "string"}},
      |  {"name": "counts", "type": {"type": "map", "values": "long"}},
      |  {"name": "next", "type": ["null", "Outer"]}
      |]}""".stripMargin)

  private def text(n: Int) = List.fill(n)(random.nextPrintableChar()).mkString

  private def outer(depth: Int): GenericRecord = {
    val r = new GenericData.Record(schema)
    r.put("id", new GenericData.Fixed(schema.getField("id").schema, Array.fill[Byte](4)(random.nextInt().toByte)))
    r.put("kind", new GenericData.EnumSymbol(schema.getField("kind").schema, List("A", "B", "C")(random.nextInt(3))))
    r.put("note", if (random.nextBoolean()) null else text(random.nextInt(40)))
    r.put("flag", random.nextBoolean())
    r.put("ratio", random.nextDouble())
    r.put("share", random.nextFloat())
    r.put("blob", java.nio.ByteBuffer.wrap(Array.fill[Byte](random.nextInt(50))(random.nextInt().toByte)))
    r.put("tags", List.fill(random.nextInt(5))(text(random.nextInt(10))).asJava)
    r.put("counts", List.fill(random.nextInt(5))(text(5) -> java.lang.Long.valueOf(random.nextLong())).toMap.asJava)
    r.put("next", if (depth > 0 && random.nextBoolean()) outer(depth - 1) else null)
    r
  }

  private def encoded(): Array[Byte] = WireFormat.encodeGeneric(outer(5), schema).fold(fail(_), identity)

  test("every value Avro writes is admitted, with arrays and maps in counted blocks too") {
    (1 to 2000).foreach { _ =>
      val bytes = encoded()
      assertEquals(AvroBounds.check(schema, bytes, 0), None)
    }
    // Blocks with their byte size (a negative count), as Avro's buffered writers may write them.
    val tags = new Schema.Parser().parse("""{"type": "array", "items": "string"}""")
    val blocked = Array[Byte](3, 8, 2, 'a', 2, 'b', 0) // -2 items in 4 bytes, then the end
    assertEquals(AvroBounds.check(tags, blocked, 0), None)
  }

  test("a length, count or index beyond the bytes present is refused naming the field, before anything is read") {
    val transfer = new Schema.Parser().parse(os.read(bankops.support.Repo.root / "schemas" / "ConfirmMoneyTransfer.avsc"))
    // 16 bytes of id, then a token declaring 10^9 bytes: the 26-byte record that ended the handler's heap.
    val bomb = Array.fill[Byte](16)(1) ++ Array(0x80, 0xa8, 0xd6, 0xb9, 0x07).map(_.toByte)
    assertEquals(AvroBounds.check(transfer, bomb, 0), Some("field token declares 1000000000 bytes, but only 0 bytes remain"))
    val tags = new Schema.Parser().parse("""{"type": "array", "items": "null"}""")
    assertEquals(AvroBounds.check(tags, Array[Byte](0xfe.toByte, 0xff.toByte, 0xff.toByte, 0xff.toByte, 0x0f), 0),
      Some("the value declares 2147483647 items, but only 0 bytes remain"))
    val kind = schema.getField("kind").schema
    assertEquals(AvroBounds.check(kind, Array[Byte](6), 0), Some("the value names symbol 3 of 3"))
    val note = schema.getField("note").schema
    assertEquals(AvroBounds.check(note, Array[Byte](1), 0), Some("the value names branch -1 of 2"))
    assertEquals(AvroBounds.check(note, Array[Byte](2, 1), 0), Some("the value declares a negative length (-1)"))
    assertEquals(AvroBounds.check(note, Array.fill[Byte](11)(0xff.toByte), 0), Some("the value holds a varint longer than 10 bytes"))
  }

  test("a recursive value nested deeper than the limit is refused, not a stack overflow") {
    val list = new Schema.Parser().parse("""{"type": "record", "name": "L", "fields": [{"name": "next", "type": ["null", "L"]}]}""")
    val deep = Array.fill[Byte](100000)(2) :+ 0.toByte
    assert(AvroBounds.check(list, deep, 0).exists(_.contains(s"nests deeper than ${AvroBounds.MaxDepth} levels")))
    val shallow = Array.fill[Byte](20)(2) :+ 0.toByte
    assertEquals(AvroBounds.check(list, shallow, 0), None)
  }

  test("mutated values: whatever is admitted, Avro's reader reads allocating at most a small multiple of its size") {
    val threads = java.lang.management.ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
    val reader = new GenericDatumReader[Any](schema)
    def allocated[A](f: => A): Long = {
      val id = Thread.currentThread.getId
      val before = threads.getThreadAllocatedBytes(id)
      f
      threads.getThreadAllocatedBytes(id) - before
    }
    val huge = List(Array(0xfe, 0xff, 0xff, 0xff, 0x0f), Array(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
      Array(0x80, 0xa8, 0xd6,
        0xb9, 0x07)).map(_.map(_.toByte))
    reader.read(null, DecoderFactory.get().binaryDecoder(encoded(), null)) // the reader's own set-up, outside what is measured
    var admitted = 0
    (1 to 20000).foreach { _ =>
      val bytes = encoded()
      val mutated = random.nextInt(4) match {
        case 0 => bytes.updated(random.nextInt(bytes.length), random.nextInt().toByte)
        case 1 => bytes.take(random.nextInt(bytes.length))
        case 2 => val at = random.nextInt(bytes.length); bytes.take(at) ++ huge(random.nextInt(huge.size)) ++ bytes.drop(at)
        case _ => val at = random.nextInt(bytes.length); bytes.take(at) ++ Array.fill(random.nextInt(8))(random.nextInt().toByte) ++ bytes.drop(at)
      }
      if (AvroBounds.check(schema, mutated, 0).isEmpty) {
        admitted += 1
        val used = allocated(Try(reader.read(null, DecoderFactory.get().binaryDecoder(mutated, null))))
        assert(used <= 64L * mutated.length + 256 * 1024, s"${mutated.length} bytes took $used bytes to read")
      }
    }
    assert(admitted > 100, s"only $admitted of 20000 mutated values were admitted: the check reads too little")
  }
}

package bankops.services.avro

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecordBuilder}
import org.scalacheck.{Gen, Prop}

import java.nio.ByteBuffer
import scala.jdk.CollectionConverters._

/** `AvroJson.writePlain` (inspect's hot path) writes exactly the JSON `AvroJson.plain` builds. */
class AvroJsonSuite extends munit.ScalaCheckSuite {

  private val schema = new Schema.Parser().parse(
    """{"type":"record","name":"All","namespace":"t","fields":[
      |{"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"s","type":"string"},{"name":"b","type":"boolean"},
      |{"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"bytes","type":"bytes"},
      |{"name":"id","type":{"type":"fixed","name":"Uuid","size":16}},{"name":"other","type":{"type":"fixed","name":"Four","size":4}},
      |{"name":"e","type":{"type":"enum","name":"Atype","symbols":["AUTO","MANUAL"]}},
      |{"name":"opt","type":["null","long"]},{"name":"either","type":["string","int"]},
      |{"name":"list","type":{"type":"array","items":"string"}},{"name":"map","type":{"type":"map","values":"long"}},
      |{"name":"inner","type":{"type":"record","name":"Inner","fields":[{"name":"x","type":"int"}]}},
      |{"name":"day","type":{"type":"int","logicalType":"date"}},{"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
      |{"name":"money","type":{"type":"bytes","logicalType":"decimal","precision":12,"scale":2}}]}""".stripMargin)

  private val text: Gen[String] = Gen.listOf(Gen.frequency(
      6 -> Gen.alphaNumChar, 1 -> Gen.oneOf('"', '\\', '\n', '\u0001', ' '), 1 -> Gen.choose('\u00a0', '\ud7ff'))).map(_.mkString)
  private def fixed(name: String, n: Int) = Gen.listOfN(n, Gen.choose(Byte.MinValue, Byte.MaxValue))
    .map(b => new GenericData.Fixed(schema.getField(name).schema(), b.toArray))

  private val records: Gen[GenericData.Record] = for {
    i <- Gen.choose(Int.MinValue, Int.MaxValue); l <- Gen.long; s <- text; b <- Gen.oneOf(true, false)
    f <- Gen.oneOf(Gen.choose(-1e6f, 1e6f), Gen.const(Float.NaN)); d <- Gen.oneOf(Gen.choose(-1e12, 1e12), Gen.const(Double.PositiveInfinity))
    bytes <- Gen.listOf(Gen.choose(Byte.MinValue, Byte.MaxValue)); id <- fixed("id", 16); other <- fixed("other", 4)
    e <- Gen.oneOf("AUTO", "MANUAL"); opt <- Gen.option(Gen.long); either <- Gen.either(text, Gen.choose(0, 100))
    list <- Gen.listOf(text); map <- Gen.mapOf(Gen.zip(text, Gen.long)); x <- Gen.choose(0, 9)
    day <- Gen.choose(-1000, 100000); at <- Gen.choose(0L, 4102444800000L); cents <- Gen.choose(-1000000000L, 1000000000L)
  } yield new GenericRecordBuilder(schema)
    .set("i", i).set("l", l).set("s", s).set("b", b).set("f", f).set("d", d).set("bytes", ByteBuffer.wrap(bytes.toArray))
    .set("id", id).set("other", other).set("e", new GenericData.EnumSymbol(schema.getField("e").schema(), e))
    .set("opt", opt.map(Long.box).orNull).set("either", either.fold(identity, Int.box))
    .set("list", list.asJava).set("map", map.asJava)
    .set("inner", new GenericRecordBuilder(schema.getField("inner").schema()).set("x", x).build())
    .set("day", day).set("at", at).set("money", ByteBuffer.wrap(java.math.BigInteger.valueOf(cents).toByteArray))
    .build()

  property("writePlain writes what plain builds, field for field") {
    Prop.forAll(records) { r =>
      val sb = new java.lang.StringBuilder()
      AvroJson.writePlain(r, schema, sb)
      assertEquals(io.circe.parser.parse(sb.toString), Right(AvroJson.plain(r, schema)))
    }
  }
}

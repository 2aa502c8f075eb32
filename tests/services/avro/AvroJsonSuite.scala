package bankops.services.avro

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericData, GenericRecordBuilder}
import org.scalacheck.{Gen, Prop}

import java.nio.ByteBuffer
import scala.jdk.CollectionConverters._

/** `AvroJson.writePlain` (inspect's hot path) writes exactly the JSON `AvroJson.plain` builds. */
class AvroJsonSuite extends bankops.support.PropertySuite {

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

  property("AvroJsonRead reads back what plain prints: the same datum (what inspect shows, produce sends)") {
    Prop.forAll(records)(r => assertEquals(AvroJsonRead.fromPlain(AvroJson.plain(r, schema), schema), Right(r)))
  }

  test("the other logical types read back as plain prints them: times of day, local timestamps, a decimal in a fixed") {
    val times = new Schema.Parser().parse(
      """{"type":"record","name":"Times","fields":[{"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
        |{"name":"tu","type":{"type":"long","logicalType":"time-micros"}},
        |{"name":"lm","type":{"type":"long","logicalType":"local-timestamp-millis"}},
        |{"name":"lu","type":{"type":"long","logicalType":"local-timestamp-micros"}},
        |{"name":"us","type":{"type":"long","logicalType":"timestamp-micros"}},
        |{"name":"price","type":{"type":"fixed","name":"Price","size":8,"logicalType":"decimal","precision":18,"scale":3}}]}""".stripMargin)
    val price = java.math.BigInteger.valueOf(-12345L).toByteArray
    val r = new GenericRecordBuilder(times).set("tm", 45296789).set("tu", 45296789012L).set("lm", 1700000000123L).set("lu", 1700000000123456L)
      .set("us", -1234567L).set("price", new GenericData.Fixed(times.getField("price").schema(), Array.fill[Byte](8 - price.length)(-1) ++ price))
      .build()
    val json = AvroJson.plain(r, times)
    assertEquals(json.hcursor.get[String]("price"), Right("-12.345"))
    assertEquals(AvroJsonRead.fromPlain(json, times), Right(r))
  }

  private def one(t: String) = new Schema.Parser().parse(s"""{"type":"record","name":"One","fields":[{"name":"v","type":$t}]}""")
  private def readV(t: String, v: String) =
    AvroJsonRead.fromPlain(io.circe.parser.parse(s"""{"v":$v}""").toOption.get, one(t)).map(_.asInstanceOf[GenericData.Record].get("v"))

  test("a union reads a JSON string as its string branch before coercing it to bytes or a double") {
    assertEquals(readV("""["null","bytes","string"]""", "\"abcd\""), Right("abcd"))
    assertEquals(readV("""["null","double","string"]""", "\"1.5\""), Right("1.5"))
    assertEquals(readV("""["null","double","string"]""", "1.5"), Right(1.5))
    assertEquals(readV("""["null","bytes","long"]""", "\"abcd\"").map(_.getClass.getSimpleName), Right("HeapByteBuffer"))
  }

  test("local-timestamp-micros reads a number as micros; instants and dates too far out for the type are errors") {
    assertEquals(readV("""{"type":"long","logicalType":"local-timestamp-micros"}""", "1700000000123456"), Right(1700000000123456L))
    assertEquals(readV("""{"type":"long","logicalType":"local-timestamp-millis"}""", "1700000000123"), Right(1700000000123L))
    assert(readV("""{"type":"long","logicalType":"timestamp-micros"}""", "\"+300000-01-01T00:00:00Z\"").isLeft)
    assert(readV("""{"type":"long","logicalType":"local-timestamp-micros"}""", "\"+300000-01-01T00:00:00\"").isLeft)
    assert(readV("""{"type":"int","logicalType":"date"}""", "\"+999999999-12-31\"").isLeft)
  }

  test("a decimal with more digits than its precision is refused, bytes or fixed") {
    val bytes = """{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}"""
    val fixed = """{"type":"fixed","name":"P","size":8,"logicalType":"decimal","precision":4,"scale":2}"""
    assert(readV(bytes, "\"99.99\"").isRight)
    assert(readV(bytes, "\"123.45\"").left.exists(_.contains("precision 4")), readV(bytes, "\"123.45\""))
    assert(readV(fixed, "\"123.4\"").left.exists(_.contains("precision 4")))
  }

  test("an error names its path through records, arrays, maps and unions, and says what a union holds") {
    val lines = """{"type":"array","items":{"type":"record","name":"L","fields":[{"name":"amount","type":"long"}]}}"""
    assertEquals(readV(lines, """[{"amount":1},{"amount":2},{"amount":"x"}]""").left.toOption, Some("v[2].amount: expected a long, got \"x\""))
    assertEquals(readV(s"""{"type":"map","values":$lines}""", """{"a":[{"amount":true}]}""").left.toOption,
      Some("v.a[0].amount: expected a long, got true"))
    assertEquals(readV("""["null","long"]""", "\"x\"").left.toOption, Some("v: expected one of null, long, got \"x\""))
    assertEquals(readV("""["long","null"]""", "7"), Right(7L))
    // A key the record lacks is named before a field that fails, wherever it stands in the object.
    assertEquals(readV(lines, """[{"amount":"x","colour":1}]""").left.toOption, Some("v[0].colour: L has no such field"))
    assertEquals(readV(lines, """[{"colour":1,"amount":2}]""").left.toOption, Some("v[0].colour: L has no such field"))
    assertEquals(readV("""["null","int","string"]""", "[]").left.toOption, Some("v: expected one of null, int, string, got []"))
    assertEquals(AvroJsonRead.fromPlain(io.circe.Json.fromString("x"), one("\"long\"")).left.toOption,
      Some("expected an object for One, got \"x\""))
  }
}

package bankops.base

import io.circe.Json
import org.scalacheck.{Gen, Prop, Test}

/** The one JSON reader of what users hand bankops: what circe reads it reads the same, and what circe takes silently
  * (a key twice) or dies on (deep nesting) it refuses in one line naming the limit and where.
  */
class JsonInputSuite extends bankops.support.PropertySuite {
  override def scalaCheckTestParameters: Test.Parameters = super.scalaCheckTestParameters.withMinSuccessfulTests(300).withWorkers(1)

  private val leaf: Gen[Json] = Gen.oneOf(
    Gen.alphaNumStr.map(Json.fromString), Gen.long.map(Json.fromLong), Gen.const(Json.Null), Gen.const(Json.True),
    Gen.double.filter(d => !d.isNaN && !d.isInfinite).map(Json.fromDoubleOrNull), Gen.const(Json.fromString("é\u0000\"\\")))

  /** A JSON value of the given depth (1: a leaf), its objects' keys distinct. */
  private def value(depth: Int): Gen[Json] =
    if (depth <= 1) leaf
    else Gen.choose(1, 3).flatMap { width =>
      Gen.oneOf(
        Gen.listOfN(width, value(depth - 1)).map(Json.fromValues),
        Gen.listOfN(width, value(depth - 1)).map(vs => Json.fromFields(vs.zipWithIndex.map { case (v, i) => s"k$i" -> v })))
    }.flatMap(j => if (j.isArray || j.isObject) Gen.const(j) else Gen.const(Json.arr(j)))

  /** Wraps `j` in `n` more levels, arrays or objects as `pick` says. */
  private def nested(j: Json, n: Int, pick: Int => Boolean): Json = (0 until n).foldLeft(j)((acc, i) =>
    if (pick(i)) Json.arr(acc) else Json.obj("k" -> acc))

  property("reads what circe reads, the same value") {
    Prop.forAll(Gen.choose(1, 6).flatMap(value)) { j =>
      assertEquals(JsonInput.parse(j.noSpaces), Right(j))
      assertEquals(JsonInput.parse(j.spaces2), Right(j))
    }
  }

  property("an integer reads as circe reads it and prints as it was written: longs, beyond a long, and -0") {
    val integers = Gen.oneOf(Gen.long.map(_.toString), Gen.choose(0, 40).map(n => "9" * 20 + "0" * n), Gen.const("-0"),
      Gen.const("-9223372036854775808"), Gen.const("9223372036854775808"))
    Prop.forAll(integers) { text =>
      val read = JsonInput.parse(s"[$text]").toOption.get
      assertEquals(read, io.circe.parser.parse(s"[$text]").toOption.get)
      assertEquals(read.noSpaces, s"[$text]")
    }
  }

  property("a key twice in one object, at any level, is refused naming the key") {
    Prop.forAll(Gen.choose(0, 40), Gen.alphaStr.filter(_.nonEmpty), Gen.choose(0, 1000)) { (depth, key, seed) =>
      val dup = s"""{"$key":1,"other":2,"$key":3}"""
      val text = (0 until depth).foldLeft(dup)((acc, i) => if ((seed >> (i % 10) & 1) == 0) s"[$acc]" else s"""{"x$i":$acc}""")
      val e = JsonInput.parse(text)
      assert(e.left.exists(_.startsWith(s"key '$key' appears twice in one object (line 1, column")), e)
    }
  }

  property("nesting is bounded at MaxDepth, arrays and objects alike: one level more is refused, never a stack overflow") {
    Prop.forAll(Gen.choose(0, 1000)) { seed =>
      val pick = (i: Int) => (seed >> (i % 10) & 1) == 0
      assert(JsonInput.parse(nested(Json.fromInt(1), JsonInput.MaxDepth, pick).noSpaces).isRight)
      val deeper = JsonInput.parse(nested(Json.fromInt(1), JsonInput.MaxDepth + 1, pick).noSpaces)
      assert(deeper.left.exists(_.startsWith(s"nested deeper than ${JsonInput.MaxDepth} levels, the limit of JSON input (line 1")), deeper)
    }
  }

  test("200,000 opening brackets: the limit, at once") {
    assertEquals(JsonInput.parse("[" * 200000), Left("nested deeper than 100 levels, the limit of JSON input (line 1, column 102)"))
  }

  test("a document over MaxChars is refused by its size before it is read") {
    val big = "\"" + "a" * JsonInput.MaxChars + "\""
    assertEquals(JsonInput.parse(big), Left("longer than 32 MiB, the limit of one JSON document"))
  }

  test("syntax errors name line and column; quiet ones quote nothing") {
    assertEquals(JsonInput.parse("{\"a\":\n S3CRET}"), Left("not JSON: unrecognized token 'S3CRET': was expecting (line 2, column 8)"))
    assertEquals(JsonInput.parse("{\"a\":\n S3CRET}", quiet = true), Left("not JSON (line 2, column 8)"))
    assertEquals(JsonInput.parse(""), Left("not JSON: no value"))
    assert(JsonInput.parse("{} {}").left.exists(_.startsWith("not JSON: text after the value")))
    assertEquals(JsonInput.parse("123456789012345678901234567890.5e-3"),
      Right(Json.fromBigDecimal(BigDecimal("123456789012345678901234567890.5e-3"))))
  }
}

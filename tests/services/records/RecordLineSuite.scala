package bankops.services.records

import io.circe.Json
import org.scalacheck.{Gen, Prop}

import java.time.Instant

/** The JSON-lines record format: what the writer writes, the reader reads back. */
class RecordLineSuite extends bankops.support.PropertySuite {
  import RecordLineSuite._
  override def scalaCheckTestParameters: org.scalacheck.Test.Parameters = super.scalaCheckTestParameters.withMinSuccessfulTests(1000)

  property("round trip: every field of a written line is read back as it was") {
    Prop.forAll(envelopes) { e =>
      val back = RecordLine.parse(RecordLine.text(e, e.value), 7).map(view)
      val expected = Right(view(RecordLine(7, Some(e.topic), Some(e.partition), Some(e.offset), e.timestamp.map(_.toEpochMilli),
            Some(e.timestampType), e.key, e.headers.map { case (k, v) => k -> v.orNull }, e.schemaId, e.record, e.value,
            if (e.value.isDefined) None else e.error, e.raw)))
      assertEquals(back, expected)
    }
  }

  property("a value written by a function reads back as the same value given as JSON") {
    Prop.forAll(envelopes, json(2)) { (e, v) =>
      val sb = new java.lang.StringBuilder()
      RecordLine.write(e, None, sb, Some(out => { out.append(v.noSpaces); () }))
      assertEquals(RecordLine.parse(sb.toString, 1).map(_.value), Right(Some(v)))
    }
  }

  property("the streaming reader reads what the tree reads, or leaves the line to it: written lines, and lines mutated") {
    val tricky = Gen.oneOf("{", "}", "[", "]", "\"", ":", ",", "null", "1.0", "-1", "1e3", "\"x\"", "99999999999999999999", "\"AP8\"",
      "{\"key\":1}", "[{}]", "true", " ", "\"2026-11-21T10:00:00Z\"")
    val lines = for {
      e <- envelopes
      base = RecordLine.text(e, e.value)
      cut <- Gen.choose(0, base.length)
      t <- tricky
      mutated <- Gen.frequency(2 -> Gen.const(base), 3 -> Gen.const(base.take(cut) + t + base.drop(cut)),
        1 -> Gen.const(base.take(cut) + base.drop(cut + 3)), 1 -> Gen.const(base.replace("\"partition\":", "\"partition\":" + t + ",\"x\":")))
    } yield mutated
    Prop.forAll(lines) { text =>
      val (fast, tree) = (RecordLineStream.read(text, 3), RecordLine.parseTree(text, 3))
      fast.foreach(f => assertEquals(Right(view(f)), tree.map(view), text))
      if (tree.isLeft) assertEquals(fast, None, text)
    }
  }

  test("the streaming reader takes the usual lines itself, and gives every odd one to the tree") {
    val usual = """{"topic":"t","partition":2,"offset":9,"timestamp":"2026-11-21T10:00:00Z","timestampType":"CreateTime","key":null,""" +
      """"headers":[{"key":"h","value":null},{"key":"b","base64":"AAE="}],"schemaId":null,"record":null,"raw":"AAAAAAE=","uncommitted":true}"""
    assert(RecordLineStream.read(usual, 1).isDefined)
    val odd = List("""{"partition":2.0}""", """{"offset":"9"}""", """{"raw":"!!"}""", """{"a":1,"a":2}""", """{} x""", """[1]""",
      """{"headers":[{"key":"h","base64":"!"}]}""", """{"headers":{}}""", """{"timestamp":"yesterday"}""")
    assertEquals(odd.filter(RecordLineStream.read(_, 1).isDefined), Nil)
    assertEquals(RecordLine.parse("""{"partition":2.0}""", 1).map(_.partition), Right(Some(2)))
  }

  test("file lines: the envelope's fields are read back; malformed ones are named") {
    val l = RecordLine.parse("""{"partition": 2, "offset": 9, "timestamp": "2026-11-21T10:00:00Z", "keyBase64": "AP8=",
      "headers": [{"key": "h", "value": "v"}, {"key": "b", "base64": "AAE="}], "record": "R", "value": {"a": 1}, "raw": "AAAAAAE="}""",
      1).toOption.get
    assertEquals((l.partition, l.offset, l.timestamp), (Some(2), Some(9L), Some(java.time.Instant.parse("2026-11-21T10:00:00Z").toEpochMilli)))
    assertEquals(l.key.map(_.toList), Some(List[Byte](0, -1)))
    assertEquals(l.headers.map { case (k, v) => k -> v.toList }, List("h" -> "v".getBytes.toList, "b" -> List[Byte](0, 1)))
    assertEquals(RecordLine.parse("""{"partition": "x"}""", 1).left.toOption, Some("partition: expected a partition number"))
    assert(RecordLine.parse("""not json""", 1).left.exists(_.startsWith("not JSON")))
  }
}

object RecordLineSuite {
  /** Arrays compare by reference: the test compares their contents. */
  def view(l: RecordLine): (RecordLine, Option[List[Byte]], List[(String, Option[List[Byte]])], Option[List[Byte]]) =
    (l.copy(key = None, headers = Nil, raw = None), l.key.map(_.toList), l.headers.map { case (k, v) => k -> Option(v).map(_.toList) },
      l.raw.map(_.toList))

  /** Text with quotes, backslashes, control characters and non-ASCII letters (no lone surrogates: not text). */
  val text: Gen[String] = Gen.listOf(Gen.frequency(
      6 -> Gen.alphaNumChar, 1 -> Gen.oneOf('"', '\\', '\n', '\t', '\u0001', '\u001f', ' ', '/'), 1 -> Gen.choose('\u00a0', '\ud7ff'))).map(
    _.mkString)

  val bytes: Gen[Array[Byte]] = Gen.oneOf(
    Gen.listOf(Gen.choose(Byte.MinValue, Byte.MaxValue)).map(_.toArray),
    text.map(_.getBytes("UTF-8")))

  def json(depth: Int): Gen[Json] = {
    val leaf = Gen.oneOf(text.map(Json.fromString), Gen.long.map(Json.fromLong), Gen.oneOf(true, false).map(Json.fromBoolean), Gen.const(Json.Null))
    if (depth == 0) leaf
    else Gen.frequency(3 -> leaf,
      1 -> Gen.listOfN(3, json(depth - 1)).map(Json.fromValues),
      1 -> Gen.listOfN(3, Gen.zip(text, json(depth - 1))).map(Json.fromFields))
  }

  val envelopes: Gen[Envelope] = for {
    topic <- text
    partition <- Gen.choose(0, 1000)
    offset <- Gen.choose(0L, Long.MaxValue)
    timestamp <- Gen.option(Gen.choose(0L, 4102444800000L).map(Instant.ofEpochMilli))
    timestampType <- Gen.oneOf("CreateTime", "LogAppendTime", "NoTimestampType")
    key <- Gen.option(bytes)
    headers <- Gen.listOf(Gen.zip(text, Gen.option(bytes)))
    schemaId <- Gen.option(Gen.choose(0, Int.MaxValue))
    record <- Gen.option(text)
    value <- Gen.option(json(2))
    error <- if (value.isDefined) Gen.const(None) else Gen.option(text)
    raw <- Gen.option(bytes)
  } yield Envelope(topic, partition, offset, timestamp, timestampType, key, headers, schemaId, record, value, error, raw)
}

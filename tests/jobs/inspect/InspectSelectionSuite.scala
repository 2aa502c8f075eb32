package bankops.jobs.inspect

import io.circe.Json
import io.circe.parser.parse
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner

import java.nio.charset.StandardCharsets.UTF_8

import bankops.services.kafka.KeyPartition
import bankops.services.records.{Envelope, HeaderMatch, RecordFilter}

/** inspect's selections without a cluster: the key's partition, header filters and `--fields` paths. */
class InspectSelectionSuite extends munit.FunSuite {

  test("a key's partition is the one Kafka's own producer picks") {
    val keys = (0 until 500).map(i => s"key-$i") ++ List("", "NL66OPEN0000000000", "ü-ключ", "6f1c2d3e-0000-4000-8000-000000000001")
    for (k <- keys; n <- List(1, 3, 9, 50)) assertEquals(KeyPartition.of(k, n), BuiltInPartitioner.partitionForKey(k.getBytes(UTF_8), n), s"$k/$n")
  }

  private def envelope(headers: (String, Option[String])*) =
    Envelope("t", 0, 0, None, "CreateTime", Some("k".getBytes(UTF_8)), headers.toList.map { case (k, v) => k -> v.map(_.getBytes(UTF_8)) },
      None, None, None, Some("not framed"), None)

  test("--header KEY=VALUE: split at the first '=', every one must match, a null value never matches") {
    assertEquals(HeaderMatch.parse("a=b=c"), Right(HeaderMatch("a", "b=c")))
    assertEquals(HeaderMatch.parse("a="), Right(HeaderMatch("a", "")))
    assert(HeaderMatch.parse("abc").left.exists(_.contains("is not KEY=VALUE")))
    assert(HeaderMatch.parse("=x").left.exists(_.contains("has no key")))
    val e = envelope("source" -> Some("cli"), "n" -> Some("3"), "empty" -> None)
    def f(hs: String*) = RecordFilter(Nil, None, Nil, hs.toList.map(h => HeaderMatch.parse(h).toOption.get))
    assert(f("source=cli").accepts(e))
    assert(f("source=cli", "n=3").accepts(e))
    assert(!f("source=cli", "n=4").accepts(e))
    assert(!f("source=CLI").accepts(e))
    assert(!f("empty=").accepts(e))
    assert(!f("missing=x").accepts(e))
    assert(!f("n=3").isEmpty)
  }

  private def json(s: String): Json = parse(s).fold(throw _, identity)

  test("--fields keeps nested paths with their nesting and the value's order; a path to nothing is left out") {
    val v = json("""{"id": 1, "meta": {"source": "cli", "at": 5, "deep": {"x": 1}}, "amount": 7, "tags": [1]}""")
    def sel(s: String) = FieldSelection.parse(s).fold(e => fail(e), identity)
    assertEquals(sel("amount,id")(v), json("""{"id": 1, "amount": 7}"""))
    assertEquals(sel("meta.source,amount")(v), json("""{"meta": {"source": "cli"}, "amount": 7}"""))
    assertEquals(sel("meta.deep.x, meta.at")(v), json("""{"meta": {"at": 5, "deep": {"x": 1}}}"""))
    assertEquals(sel("meta,meta.at")(v), json("""{"meta": {"source": "cli", "at": 5, "deep": {"x": 1}}}"""))
    assertEquals(sel("amount.x,nothing")(v), json("{}"))
    assertEquals(sel("a")(Json.fromInt(3)), Json.fromInt(3))
    assertEquals(sel("meta.source,amount").heads, Set("meta", "amount"))
  }

  test("--fields refuses paths that are not field names joined by dots") {
    for (bad <- List("a..b", ".a", "a.", "a,,b", "", "a b", "1a", "a-b"))
      assert(FieldSelection.parse(bad).isLeft, bad)
    assertEquals(FieldSelection.parse("a..b"),
      Left("--fields 'a..b': 'a..b' is not a field path (Avro field names joined by dots, e.g. amount or meta.source)"))
  }
}

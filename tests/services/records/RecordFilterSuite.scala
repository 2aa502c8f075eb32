package bankops.services.records

import io.circe.Json

class RecordFilterSuite extends munit.FunSuite {

  private def envelope(record: Option[String], key: Option[String], value: Option[Json], error: Option[String] = None): Envelope =
    Envelope("t", 0, 0, None, "CreateTime", key.map(_.getBytes("UTF-8")), Nil, None, record, value, error, None)

  private val transfer = envelope(Some("nl.openweb.data.ConfirmMoneyTransfer"), Some("k1"),
    Some(Json.obj("amount" -> Json.fromLong(1500), "from" -> Json.fromString("cash"), "meta" -> Json.obj("n" -> Json.fromInt(2)))))
  private val broken = envelope(None, Some("k2"), None, Some("unknown schema id 9"))

  private def where(exprs: String*): RecordFilter =
    RecordFilter(Nil, None, exprs.toList.map(e => Condition.parse(e).fold(err => fail(err), identity)))

  test("conditions: =, !=, numeric comparisons, dotted paths; a missing field never matches") {
    assert(where("amount>1000").accepts(transfer))
    assert(!where("amount<1000").accepts(transfer))
    assert(where("amount=1500", "from=cash", "meta.n<=2").accepts(transfer))
    assert(where("from!=NL66OPEN0000000000").accepts(transfer))
    assert(!where("missing=1").accepts(transfer))
    assert(!where("from>1").accepts(transfer))
  }

  test("parse errors say what is wrong") {
    assertEquals(Condition.parse("amount>lots"), Left("'amount>lots': > needs a number, not 'lots'"))
    assertEquals(Condition.parse("no operator"), Left("'no operator' is not FIELD=VALUE, FIELD!=VALUE or FIELD<|>|<=|>=NUMBER"))
    assertEquals(Condition.parse("a.b >= 3"), Right(Condition(List("a", "b"), ">=", "3")))
  }

  test("record names match simple or full; keys as text") {
    assert(RecordFilter(List("ConfirmMoneyTransfer"), None, Nil).accepts(transfer))
    assert(RecordFilter(List("nl.openweb.data.ConfirmMoneyTransfer"), None, Nil).accepts(transfer))
    assert(!RecordFilter(List("MoneyTransfer"), None, Nil).accepts(transfer))
    assert(RecordFilter(Nil, Some("k1"), Nil).accepts(transfer))
    assert(!RecordFilter(Nil, Some("k2"), Nil).accepts(transfer))
  }

  test("undecodable records pass record and value filters for showing, but are not selected for copying by them") {
    val byRecord = RecordFilter(List("ConfirmMoneyTransfer"), None, Nil)
    assert(byRecord.accepts(broken))
    assert(!byRecord.selects(broken))
    assert(where("amount>1").accepts(broken))
    assert(!where("amount>1").selects(broken))
    val byKey = RecordFilter(Nil, Some("k2"), Nil)
    assert(byKey.selects(broken))
    assert(!RecordFilter(Nil, Some("k1"), Nil).accepts(broken))
    assert(RecordFilter(Nil, None, Nil).isEmpty && RecordFilter(Nil, None, Nil).selects(broken))
  }
}

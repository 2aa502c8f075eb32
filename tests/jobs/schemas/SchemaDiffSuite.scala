package bankops.jobs.schemas

import org.apache.avro.Schema

/** The field-level diff on Avro schemas alone: no services. */
class SchemaDiffSuite extends munit.FunSuite {

  private def record(fields: String, name: String = "Payment", extra: String = ""): Schema =
    new Schema.Parser().parse(s"""{"type":"record","name":"$name","namespace":"bank.t"$extra,"fields":[$fields]}""")

  private val meta = """{"name":"meta","type":{"type":"record","name":"Meta","fields":[{"name":"source","type":"string"}]}}"""
  private val base = record(s"""{"name":"id","type":"string"},{"name":"amount","type":"long"},$meta""")

  private def described(a: Schema, b: Schema, docs: Boolean = false) = SchemaDiff(a, b, docs).map(_.describe)

  test("the same schema, reformatted, has no changes") {
    assertEquals(SchemaDiff(base, new Schema.Parser().parse(base.toString(true))), Nil)
  }

  test("fields added (with and without a default), removed, and a type changed, each named") {
    val after = record(s"""{"name":"amount","type":"string"},$meta,{"name":"note","type":"string","default":""},{"name":"x","type":"int"}""")
    assertEquals(described(base, after),
      List("field id: removed (string)", "field amount: type changed from long to string", "field note: added (string, default \"\")",
        "field x: added without a default (int)"))
  }

  test("a nested record's field by its path; a nested record renamed") {
    val after = record("""{"name":"id","type":"string"},{"name":"amount","type":"long"},""" +
      """{"name":"meta","type":{"type":"record","name":"Meta2","fields":[{"name":"source","type":["null","string"],"default":null}]}}""")
    assertEquals(SchemaDiff(base, after),
      List(SchemaChange("meta", "record name changed", Some("bank.t.Meta"), Some("bank.t.Meta2")),
        SchemaChange("meta.source", "type changed", Some("string"), Some("[null, string]")),
        SchemaChange("meta.source", "default added", None, Some("null"))))
  }

  test("defaults added, changed and removed; aliases; a rename through an alias") {
    val a = record("""{"name":"a","type":"long"},{"name":"b","type":"long","default":1},{"name":"c","type":"long","default":2},""" +
      """{"name":"old","type":"string"}""")
    val b = record("""{"name":"a","type":"long","default":0},{"name":"b","type":"long","default":5},{"name":"c","type":"long"},""" +
      """{"name":"new","type":"string","aliases":["old"]}""")
    assertEquals(described(a, b),
      List("field a: default added (0)", "field b: default changed from 1 to 5", "field c: default removed (2)",
        "field new: renamed (by alias) from old to new", "field new: aliases added (old)"))
  }

  test("the record's name and namespace, enum symbols and default, fixed size, arrays and maps by path") {
    val a = record("""{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B"],"default":"A"}},""" +
      """{"name":"raw","type":{"type":"fixed","name":"Raw","size":16}},{"name":"tags","type":{"type":"array","items":"string"}},""" +
      """{"name":"limits","type":{"type":"map","values":"int"}}""")
    val b = new Schema.Parser().parse("""{"type":"record","name":"Payment","namespace":"bank.u","fields":[""" +
      """{"name":"kind","type":{"type":"enum","name":"Kind","namespace":"bank.t","symbols":["B","C"],"default":"B"}},""" +
      """{"name":"raw","type":{"type":"fixed","name":"Raw","namespace":"bank.t","size":8}},{"name":"tags","type":{"type":"array","items":"int"}},""" +
      """{"name":"limits","type":{"type":"map","values":"long"}}]}""")
    assertEquals(described(a, b),
      List("record: record name changed from bank.t.Payment to bank.u.Payment", "field kind: enum symbols removed (A)",
        "field kind: enum symbols added (C)", "field kind: enum default changed from A to B", "field raw: fixed size changed from 16 to 8",
        "field tags[]: type changed from string to int", "field limits{}: type changed from int to long"))
  }

  test("documentation only when asked: it changes no data") {
    val documented = record("""{"name":"id","type":"string","doc":"the id"}""", extra = ""","doc":"a payment"""")
    val plain = record("""{"name":"id","type":"string"}""")
    assertEquals(SchemaDiff(plain, documented), Nil)
    assertEquals(described(plain, documented, docs = true),
      List("record: record doc changed from none to a payment", "field id: doc changed from none to the id"))
  }

  test("a recursive record ends") {
    val node = """{"type":"record","name":"Node","namespace":"bank.t","fields":[{"name":"next","type":["null","Node"]},{"name":"v","type":%s}]}"""
    val a = new Schema.Parser().parse(node.format("\"int\""))
    val b = new Schema.Parser().parse(node.format("\"long\""))
    assertEquals(described(a, b), List("field v: type changed from int to long"))
  }

  test("a decimal's precision or scale changed is a type change, bytes or fixed") {
    def dec(p: Int, sc: Int) =
      record(s"""{"name":"m","type":{"type":"bytes","logicalType":"decimal","precision":$p,"scale":$sc}},""" +
        s"""{"name":"f","type":{"type":"fixed","name":"F","size":8,"logicalType":"decimal","precision":$p,"scale":$sc}}""")
    assertEquals(described(dec(12, 2), dec(12, 2)), Nil)
    val changes = SchemaDiff(dec(12, 2), dec(12, 4))
    assertEquals(changes.map(c => (c.path, c.change)), List("m" -> "type changed", "f" -> "type changed"), changes)
    assert(changes.head.describe.contains("decimal(12,4)"), changes.head.describe)
  }
}

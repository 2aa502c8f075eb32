package bankops.services.plan

import org.apache.avro.Schema

/** bankops' own compatibility check: each reason names the field (by path) and what changed. */
class LocalCompatibilitySuite extends munit.FunSuite {

  private def record(fields: String): Schema =
    new Schema.Parser().parse(s"""{"type":"record","name":"Payment","namespace":"bank.t","fields":[$fields]}""")

  private val v1 = record("""{"name":"amount","type":"long"},""" +
    """{"name":"meta","type":{"type":"record","name":"Meta","fields":[{"name":"source","type":"string"}]}}""")

  test("backward: a field added without a default and a type changed, by name") {
    val v2 = record("""{"name":"amount","type":"string"},{"name":"x","type":"int"},""" +
      """{"name":"meta","type":{"type":"record","name":"Meta","fields":[{"name":"source","type":"int"}]}}""")
    val problems = LocalCompatibility.problems("BACKWARD", v2, List(v1))
    assertEquals(problems.toSet,
      Set("field amount: type changed from long to string (the new schema cannot read old data)",
        "field x added without a default (the new schema cannot read old data)",
        "field meta.source: type changed from string to int (the new schema cannot read old data)"))
  }

  test("forward: a field removed that old readers need; compatible changes give no reasons") {
    val v2 = record("""{"name":"meta","type":{"type":"record","name":"Meta","fields":[{"name":"source","type":"string"}]}}""")
    assertEquals(LocalCompatibility.problems("FORWARD", v2, List(v1)),
      List("field amount removed, and the old schema has no default for it (the old schema cannot read new data)"))
    assertEquals(LocalCompatibility.problems("BACKWARD", v2, List(v1)), Nil)
    assertEquals(LocalCompatibility.problems("NONE", record("""{"name":"a","type":"int"}"""), List(v1)), Nil)
  }

  test("enum symbols removed under backward") {
    def withKind(symbols: String) =
      record(s"""{"name":"kind","type":{"type":"enum","name":"Kind","symbols":[$symbols]}}""")
    assertEquals(LocalCompatibility.problems("BACKWARD", withKind("\"A\""), List(withKind("\"A\",\"B\""))),
      List("field kind: enum symbols [B] removed (old data may hold them) (the new schema cannot read old data)"))
  }
}

package bankops.jobs.capture

import org.apache.avro.Schema

/** Pure parts of capture and restore: names, positions, configs, and which fields --redact can mask. */
class RestorePlanSuite extends munit.FunSuite {
  private val plan = RestorePlan("inc.", Map("commands.dlq" -> "dead"), "g.")

  test("topics take the prefix or their rename; subjects named after a topic follow it, others keep their name") {
    assertEquals((plan.topic("commands"), plan.topic("commands.dlq"), plan.group("handler")), ("inc.commands", "dead", "g.handler"))
    val topics = List("commands", "commands.dlq")
    assertEquals(plan.subject("commands-nl.openweb.data.ConfirmMoneyTransfer", topics), "inc.commands-nl.openweb.data.ConfirmMoneyTransfer")
    // The longest topic name wins: commands.dlq's subject is not taken for one of commands.
    assertEquals(plan.subject("commands.dlq-value", topics), "dead-value")
    assertEquals(plan.subject("nl.openweb.data.Money", topics), "nl.openweb.data.Money")
  }

  test("a group's offset lands after as many restored records as there were captured records before it") {
    val captured = Vector(10L, 11L, 13L, 20L) // gaps: transaction markers, a filter
    assertEquals(List(0L, 10L, 11L, 12L, 13L, 20L, 21L, 99L).map(RestorePlan.offset(_, captured, 100L)),
      List(100L, 100L, 101L, 102L, 102L, 103L, 104L, 104L))
  }

  test("restored topics keep their records for good, with no more in-sync replicas asked than they have") {
    val captured = Map("min.insync.replicas" -> "2", "retention.ms" -> "900000", "cleanup.policy" -> "delete",
      "message.timestamp.after.max.ms" -> "3600000")
    assertEquals(RestorePlan.configs(captured, 1),
      Map("min.insync.replicas" -> "1", "retention.ms" -> "-1", "retention.bytes" -> "-1", "cleanup.policy" -> "delete"))
    assertEquals(RestorePlan.configs(captured, 3)("min.insync.replicas"), "2")
  }

  test("--redact takes text, bytes and number fields, at any depth; an enum, a fixed or a missing field is refused") {
    val schema = new Schema.Parser().parse(
      """{"type":"record","name":"R","fields":[{"name":"token","type":"string"},{"name":"kind","type":{"type":"enum","name":"K","symbols":["A"]}},
        |{"name":"id","type":{"type":"fixed","name":"U","size":16}},{"name":"inner","type":["null",{"type":"record","name":"I",
        |"fields":[{"name":"pin","type":"long"}]}]}]}""".stripMargin)
    assertEquals(List("token", "inner.pin", "kind", "id", "nope", "inner").map(p => Redaction.holds(schema, p.split('.').toList)),
      List(true, true, false, false, false, false))
  }
}

package bankops.services.contracts

import bankops.support.{Repo, TopologyFiles}

class TopologyFileSuite extends munit.FunSuite {

  private def error(json: String): String = {
    val file = TopologyFiles.write(json)
    TopologyFile.load(file) match {
      case Left(e) => assert(e.startsWith(file.toString), e); e.stripPrefix(file.toString + ": ")
      case Right(t) => fail(s"loaded $t")
    }
  }

  private val heartbeat = """{"partitions": 1, "replicationFactor": 1, "records": [{"type": "nl.openweb.data.Heartbeat", "key": "time"}]}"""

  test("the default topology is commands/DESIGN.md's: four topics, eight records, TopicRecordNameStrategy; and the handler's dead-letter topic") {
    val t = TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(fail(_), identity)
    assertEquals(t.subjectNameStrategy, SubjectNameStrategy.TopicRecord)
    assertEquals(t.topics.map(t => t.name -> t.partitions),
      List("heartbeat" -> 1, "commands" -> 9, "commands.dlq" -> 1, "command_feedback" -> 9, "balance_changed" -> 9))
    assertEquals(t.topic("commands.dlq").map(_.records), Some(Nil), "no record types: it keeps what the handler could not read")
    assertEquals(t.topics.map(_.replicationFactor).distinct, List(3))
    assertEquals(t.topic("heartbeat").map(_.config), Some(Map("retention.ms" -> "900000", "min.insync.replicas" -> "2")))
    assert(t.topics.forall(_.config.get("min.insync.replicas").contains("2")), "every bank topic keeps two in-sync replicas")
    assertEquals(t.bindings.size, 8)
    assertEquals(t.topic("balance_changed").map(_.records.map(_.key)), Some(List(RecordKey.Field("iban"))))
    assertEquals(t.topic("heartbeat").map(_.records.map(_.key)), Some(List(RecordKey.Time)))
  }

  test("config values are stored canonically: units resolved") {
    val file = TopologyFiles.write(s"""{"topics": {"h": {"partitions": 1, "replicationFactor": 1,
      "config": {"retention.ms": "15m", "segment.bytes": "1GiB", "cleanup.policy": "Delete,Compact"},
      "records": [{"type": "nl.openweb.data.Heartbeat", "key": "time"}]}}}""")
    val t = TopologyFile.load(file).fold(fail(_), identity)
    assertEquals(t.topics.head.config, Map("retention.ms" -> "900000", "segment.bytes" -> "1073741824", "cleanup.policy" -> "compact,delete"))
  }

  test("an unknown key names its path") {
    assertEquals(error(s"""{"topics": {"h": ${heartbeat.replace("\"partitions\"", "\"partition\"")}}}"""),
      "topics.h.partition: unknown key (expected config, partitions, records, replicationFactor)")
  }

  test("environments: an override for every topic, then per topic; errors name their path") {
    val file = TopologyFiles.write(s"""{"topics": {"h": $heartbeat, "g": $heartbeat}, "environments": {"small": {"replicationFactor": 1,
      "config": {"min.insync.replicas": 1}, "topics": {"g": {"partitions": 4, "config": {"retention.ms": "1h"}}}}}}""")
    val t = TopologyFile.load(file).flatMap(_.in("small")).fold(fail(_), identity)
    assertEquals(t.topic("h").map(h => (h.partitions, h.replicationFactor, h.config)), Some((1, 1, Map("min.insync.replicas" -> "1"))))
    assertEquals(t.topic("g").map(g => (g.partitions, g.config)), Some((4, Map("min.insync.replicas" -> "1", "retention.ms" -> "3600000"))))
    assertEquals(error(s"""{"topics": {"h": $heartbeat}, "environments": {"small": {"topics": {"x": {"partitions": 2}}}}}"""),
      "environments.small.topics.x: the topology declares no topic 'x'")
    assertEquals(error(s"""{"topics": {"h": $heartbeat}, "environments": {"small": {"replicas": 1}}}"""),
      "environments.small.replicas: unknown key (expected config, partitions, replicationFactor, topics)")
    assertEquals(error(s"""{"topics": {"h": $heartbeat}, "environments": {"small": {"replicationFactor": 0}}}"""),
      "environments.small.replicationFactor: must be at least 1, got 0")
  }

  test("a missing field names its path") {
    assertEquals(error("""{"topics": {"h": {"partitions": 1, "records": []}}}"""), "topics.h.replicationFactor: missing")
  }

  test("partitions below 1 are refused") {
    assertEquals(error(s"""{"topics": {"h": ${heartbeat.replace("\"partitions\": 1", "\"partitions\": 0")}}}"""),
      "topics.h.partitions: must be at least 1, got 0")
  }

  test("a record type no .avsc defines is refused, naming the known ones") {
    val e = error(s"""{"topics": {"h": ${heartbeat.replace("Heartbeat", "Heartbeet")}}}""")
    assert(e.startsWith(
        "topics.h.records[0].type: no .avsc file defines record nl.openweb.data.Heartbeet (known: nl.openweb.data.AccountCreationConfirmed"), e)
  }

  test("a record whose .avsc is missing is refused") {
    val file = TopologyFiles.write(s"""{"topics": {"h": $heartbeat}}""")
    os.remove(file / os.up / "Heartbeat.avsc")
    val e = TopologyFile.load(file).left.getOrElse(fail("loaded"))
    assert(e.contains("topics.h.records[0].type: no .avsc file defines record nl.openweb.data.Heartbeat"), e)
  }

  test("a key naming no field of the record is refused") {
    assertEquals(error(s"""{"topics": {"h": ${heartbeat.replace("\"time\"", "\"when\"")}}}"""),
      "topics.h.records[0].key: nl.openweb.data.Heartbeat has no field 'when' (key by a field, or 'time')")
  }

  test("internal topic names and illegal names are refused") {
    assert(error(s"""{"topics": {"_schemas": $heartbeat}}""").contains("never touches"))
    assert(error(s"""{"topics": {"a b": $heartbeat}}""").contains("not a legal topic name"))
  }

  test("a config value with a bad unit is refused") {
    assertEquals(
      error(s"""{"topics": {"h": ${heartbeat.replace("\"records\"", "\"config\": {\"retention.ms\": \"15 fortnights\"}, \"records\"")}}}"""),
      "topics.h.config.retention.ms: '15 fortnights' is not a duration such as 900000, 15m, 7d")
  }

  test("invalid JSON gives line and column") {
    val e = error("{\"topics\": {\n  \"h\": ,\n}}")
    assertEquals(e, "not JSON: unexpected character ',': expected a valid value (line 2, column 9)")
  }

  test("an invalid .avsc next to the topology is named") {
    val file = TopologyFiles.write(s"""{"topics": {"h": $heartbeat}}""")
    os.write(file / os.up / "Broken.avsc", """{"type": "record", "name": "Broken", "fields": [{"name": "x", "type": "lng"}]}""")
    val e = TopologyFile.load(file).left.getOrElse(fail("loaded"))
    assert(e.startsWith(s"${file / os.up / "Broken.avsc"}: not a valid Avro schema:") && e.contains("lng"), e)
  }

  test("an unknown subject name strategy is refused") {
    assert(error(s"""{"subjectNameStrategy": "ByColour", "topics": {"h": $heartbeat}}""").startsWith(
        "subjectNameStrategy: 'ByColour' is not a subject name strategy"))
  }
}

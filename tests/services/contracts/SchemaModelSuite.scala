package bankops.services.contracts

import org.apache.avro.Schema

import bankops.services.plan.LocalCompatibility
import bankops.support.{Repo, TopologyFiles}

class SchemaModelSuite extends munit.FunSuite {

  test("subject name strategies name subjects as Confluent's serializers do") {
    assertEquals(SubjectNameStrategy.TopicRecord.subject("commands", "nl.openweb.data.ConfirmMoneyTransfer"),
      "commands-nl.openweb.data.ConfirmMoneyTransfer")
    assertEquals(SubjectNameStrategy.Topic.subject("commands", "nl.openweb.data.ConfirmMoneyTransfer"), "commands-value")
    assertEquals(SubjectNameStrategy.Record.subject("commands", "nl.openweb.data.ConfirmMoneyTransfer"), "nl.openweb.data.ConfirmMoneyTransfer")
    assertEquals(SubjectNameStrategy.parse("io.confluent.kafka.serializers.subject.RecordNameStrategy"), Right(SubjectNameStrategy.Record))
    assertEquals(SubjectNameStrategy.parse("topic"), Right(SubjectNameStrategy.Topic))
    assert(SubjectNameStrategy.parse("colour").isLeft)
  }

  test("the default topology asks for exactly eight subjects <topic>-nl.openweb.data.<Record>") {
    val t = TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(fail(_), identity)
    val subjects = DesiredSubjects.of(t, t.subjectNameStrategy, t.schemaFiles).fold(fail(_), identity).map(_.subject)
    assertEquals(subjects,
      List("heartbeat-nl.openweb.data.Heartbeat", "commands-nl.openweb.data.ConfirmAccountCreation",
        "commands-nl.openweb.data.ConfirmMoneyTransfer", "command_feedback-nl.openweb.data.AccountCreationConfirmed",
        "command_feedback-nl.openweb.data.AccountCreationFailed", "command_feedback-nl.openweb.data.MoneyTransferConfirmed",
        "command_feedback-nl.openweb.data.MoneyTransferFailed", "balance_changed-nl.openweb.data.BalanceChanged"))
  }

  test("TopicNameStrategy on a topic with two record types is refused: one subject cannot hold both") {
    val t = TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(fail(_), identity)
    assertEquals(DesiredSubjects.of(t, SubjectNameStrategy.Topic, t.schemaFiles).map(_.map(_.subject)),
      Left(
        "subject commands-value would hold nl.openweb.data.ConfirmAccountCreation and " +
          "nl.openweb.data.ConfirmMoneyTransfer: TopicNameStrategy allows one record type per subject"))
    val one = t.copy(topics = t.topics.filter(_.records.size == 1))
    assertEquals(DesiredSubjects.of(one, SubjectNameStrategy.Topic, t.schemaFiles).map(_.map(_.subject)),
      Right(List("heartbeat-value", "balance_changed-value")))
  }

  test("a schema importing a named type from another file: parsed after it, referenced by that file's subject, which comes first") {
    val file = TopologyFiles.write("""{"topics": {"payments": {"partitions": 1, "replicationFactor": 1,
      "records": [{"type": "bankops.test.Payment", "key": "id"}]}}}""")
    os.write(file / os.up / "Money.avsc",
      """{"type":"record","name":"Money","namespace":"bankops.test","fields":[{"name":"cents","type":"long"},{"name":"currency","type":"string"}]}""")
    os.write(file / os.up / "Payment.avsc",
      """{"type":"record","name":"Payment","namespace":"bankops.test","fields":[{"name":"id","type":"string"},{"name":"amount","type":"Money"}]}""")
    val t = TopologyFile.load(file).fold(fail(_), identity)
    assertEquals(t.schemaFiles("bankops.test.Payment").imports, List("bankops.test.Money"))
    val desired = DesiredSubjects.of(t, t.subjectNameStrategy, t.schemaFiles).fold(fail(_), identity)
    assertEquals(
      desired.map(d => d.subject -> d.dependsOn), List("bankops.test.Money" -> Nil, "payments-bankops.test.Payment" -> List("bankops.test.Money")))
  }

  test("local compatibility: a new field without default breaks BACKWARD, with a default it does not; FORWARD the other way") {
    def p(s: String) = new Schema.Parser().parse(s)
    val v1 = p("""{"type":"record","name":"H","fields":[{"name":"beat","type":"long"}]}""")
    val noDefault = p("""{"type":"record","name":"H","fields":[{"name":"beat","type":"long"},{"name":"node","type":"string"}]}""")
    val withDefault = p("""{"type":"record","name":"H","fields":[{"name":"beat","type":"long"},{"name":"node","type":"string","default":""}]}""")
    val problems = LocalCompatibility.problems("BACKWARD", noDefault, List(v1))
    assertEquals(problems.size, 1)
    assertEquals(problems.head, "field node added without a default (the new schema cannot read old data)")
    assertEquals(LocalCompatibility.problems("BACKWARD", withDefault, List(v1)), Nil)
    assertEquals(LocalCompatibility.problems("FORWARD", noDefault, List(v1)), Nil)
    assertEquals(LocalCompatibility.problems("NONE", noDefault, List(v1)), Nil)
    assertEquals(LocalCompatibility.problems("BACKWARD", v1, List(noDefault, withDefault)), Nil)
    assert(LocalCompatibility.problems("FORWARD_TRANSITIVE", v1, List(noDefault, withDefault)).nonEmpty)
  }
}

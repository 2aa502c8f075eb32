package bankops.jobs

import org.apache.avro.Schema
import org.apache.kafka.common.errors.{AuthorizationException, InvalidConfigurationException, TimeoutException}

import bankops.base.{Failure, Verdict}
import bankops.jobs.deploy.DeployCommand.ApplyReport
import bankops.jobs.schemas.SchemasCommand.RegisterReport
import bankops.jobs.topics.TopicsCommand
import bankops.services.contracts.{DesiredSubject, SchemaFile}
import bankops.services.plan.{AccessPlan, AclChange, AclEntry, Outcome, SchemaFlow, SchemaPlan, SubjectPlan, SubjectStatus, TopicChange, TopicPlan}

/** How `apply`, `topics apply` and `schemas register` end, decided from their reports as values: each ending's last
  * line and exit code, without a cluster or a registry.
  */
class ApplyEndingsSuite extends munit.FunSuite {
  private val text = """{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data","fields":[{"name":"beat","type":"long"}]}"""
  private val file = SchemaFile(os.pwd / "Heartbeat.avsc", new Schema.Parser().parse(text), Nil, text)
  private def subject(name: String, status: SubjectStatus) = SubjectPlan(DesiredSubject(name, file, List("heartbeat"), Nil), status, "BACKWARD", None)

  private val create = TopicChange.Create("hb", 3, 1, Map.empty)
  private val grow = TopicChange.AddPartitions("commands", 3, 6)
  private val topics = TopicPlan(List(create, grow), Nil)
  private val newSubject = SchemaPlan(List(subject("hb-nl.openweb.data.Heartbeat", SubjectStatus.New)))
  private val incompatible =
    SchemaPlan(List(subject("hb-x", SubjectStatus.Incompatible("BACKWARD", List("READER_FIELD_MISSING_DEFAULT_VALUE: beat")))))
  private val acl = AclChange(AccessPlan.Add, AclEntry("User:handler", "TOPIC", "commands", "LITERAL", "READ"))
  private val access = AccessPlan(managesAcls = true, managesUsers = false, List(acl), Nil, Nil)
  private val none = TopicPlan(Nil, Nil)
  private def failed(c: TopicChange, e: Throwable) = Outcome(c, Some(e))
  private def done(c: TopicChange) = Outcome(c, None)
  private def registration(after: SchemaPlan) = SchemaFlow.Registration(List(newSubject.subjects.head -> 7), 0, Right(after))

  private def ending(v: Verdict): (List[String], Int) = (v.lines, v.code.code)

  test("apply: nothing pending is exit 0 saying so; the gate's refusals are each named, nothing changed, with their class's code") {
    assertEquals(ending(ApplyReport(none, SchemaPlan(Nil), AccessPlan.unmanaged).verdict), (List("apply: no changes"), 0))
    val gateLine = "apply: the gate failed; nothing was changed, neither topics nor schemas (nor ACLs or users)"
    val denied = ApplyReport(topics, newSubject, AccessPlan.unmanaged, refused = List(failed(grow, new AuthorizationException("no"))))
    assertEquals(ending(denied.verdict), (List("refused: topic commands: add-partitions: Authorization: no", gateLine), 4))
    val invalid = ApplyReport(topics, newSubject, AccessPlan.unmanaged, refused = List(failed(create, new InvalidConfigurationException("x"))))
    assertEquals(invalid.verdict.code.code, 2)
    val unreadable = ApplyReport(none, SchemaPlan(Nil), access.copy(refusals = List("refused: users.handler: the password file is empty")))
    assertEquals(ending(unreadable.verdict), (List("refused: users.handler: the password file is empty", gateLine), 2))
    assertEquals(ApplyReport(none, SchemaPlan(Nil), access.copy(refusals = List("refused: access"), notAuthorized = true)).verdict.code.code, 4)
    val schema = ApplyReport(none, incompatible, AccessPlan.unmanaged).verdict
    assertEquals(schema.code.code, 1)
    assert(schema.lines.head.startsWith("incompatible: hb-x: "), schema.lines)
  }

  test("apply: the first step that failed or still differs names the ending, and the steps after it are said not taken") {
    val planned = ApplyReport(topics, newSubject, access)
    val topicFailed = planned.copy(outcomes = List(done(create), failed(grow, new TimeoutException("late"))))
    assertEquals(ending(topicFailed.verdict), (List("apply: topic changes failed on commands; ACLs, users and schemas not changed"), 3))
    val differs = planned.copy(outcomes = List(done(create), done(grow)), topicsLeft = Some(TopicPlan(List(grow), Nil)))
    assertEquals(ending(differs.verdict), (List("apply: topics still differ after apply; ACLs, users and schemas not changed"), 1))
    val topicsDone = planned.copy(outcomes = List(done(create), done(grow)), topicsLeft = Some(none))
    val aclFailed = topicsDone.copy(accessFailed = Some(new AuthorizationException("ALTER")))
    assertEquals(ending(aclFailed.verdict), (List("apply: ACL/user changes failed: Authorization: ALTER; schemas not registered"), 4))
    assert(!aclFailed.accessDone)
    val aclLeft = topicsDone.copy(accessLeft = Some(access))
    assertEquals(ending(aclLeft.verdict), (List("apply: 1 ACL/user changes still pending after apply; schemas not registered"), 1))
    assert(!aclLeft.accessDone, "the summary marks ACLs done only when the cluster, asked again, has them")
    val registered = topicsDone.copy(accessLeft = Some(AccessPlan.unmanaged), registration = Some(registration(SchemaPlan(Nil))))
    assertEquals(ending(registered.verdict),
      (List("schemas: 1 registered, 0 levels set; every subject matches its .avsc"), 0))
    assert(registered.accessDone)
    val stillPending = registered.copy(registration = Some(registration(newSubject)))
    assertEquals(ending(stillPending.verdict), (List("schemas: registered, but still pending: hb-nl.openweb.data.Heartbeat"), 1))
    val noSchemas = ApplyReport(topics, SchemaPlan(Nil), AccessPlan.unmanaged, outcomes = List(done(create), done(grow)), topicsLeft = Some(none),
      accessLeft = Some(AccessPlan.unmanaged))
    assertEquals(ending(noSchemas.verdict), (List("topics and access: applied; schemas: no changes"), 0))
  }

  test("topics apply: a dry run is the plan (exit 1 when pending); refused, failed part way, still differing and done each end their own way") {
    assertEquals(ending(TopicsCommand.ApplyReport(topics, dryRun = true).verdict), (Nil, 1))
    assertEquals(ending(TopicsCommand.ApplyReport(none, dryRun = false).verdict), (Nil, 0))
    val r = TopicsCommand.ApplyReport(topics, dryRun = false)
    assertEquals(ending(r.copy(refused = List(failed(create, new InvalidConfigurationException("bad key")))).verdict),
      (List("refused: topic hb: create: InvalidConfiguration: bad key", "topics: the broker refused 1 of 2 changes; nothing was changed"), 2))
    assertEquals(ending(r.copy(outcomes = List(done(create), failed(grow, new AuthorizationException("no")))).verdict),
      (List("topics: 1 of 2 changes applied; failed on commands"), 4))
    assertEquals(ending(r.copy(outcomes = List(done(create), done(grow)), left = Some(TopicPlan(List(grow), Nil))).verdict),
      (List("topics: applied, but the cluster still differs: commands 3 -> 6 partitions"), 1))
    assertEquals(ending(r.copy(outcomes = List(done(create), done(grow)), left = Some(none)).verdict),
      (List("topics: 2 changes applied; the cluster matches the topology"), 0))
  }

  test("schemas register: a dry run or nothing pending registers nothing; incompatible is refused (exit 1); registered ends as asked again") {
    assertEquals(RegisterReport(newSubject, dryRun = true).registers, false)
    assertEquals(ending(RegisterReport(newSubject, dryRun = true).verdict), (Nil, 1))
    assertEquals(ending(RegisterReport(SchemaPlan(Nil), dryRun = false).verdict), (Nil, 0))
    val refused = RegisterReport(incompatible, dryRun = false)
    assert(!refused.registers)
    assertEquals(ending(refused.verdict), (List("schemas: hb-x incompatible; nothing was registered"), 1))
    assertEquals(refused.verdict.asInstanceOf[Verdict.Refused].failure, Failure.Kind.Difference)
    val r = RegisterReport(newSubject, dryRun = false)
    assert(r.registers)
    assertEquals(ending(r.copy(registration = Some(registration(SchemaPlan(Nil)))).verdict),
      (List("schemas: 1 registered, 0 levels set; every subject matches its .avsc"), 0))
  }
}

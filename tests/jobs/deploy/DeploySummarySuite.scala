package bankops.jobs.deploy

import org.apache.avro.Schema

import bankops.services.contracts.{DesiredSubject, SchemaFile}
import bankops.services.plan.{AccessPlan, AclChange, AclEntry, Outcome, SchemaPlan, UserChange, SubjectPlan, SubjectStatus, TopicChange, TopicPlan}
import bankops.support.MarkdownCheck

class DeploySummarySuite extends munit.FunSuite {
  private val text = """{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data","fields":[{"name":"beat","type":"long"}]}"""
  private val file = SchemaFile(os.pwd / "Heartbeat.avsc", new Schema.Parser().parse(text), Nil, text)
  private def subject(name: String, status: SubjectStatus) = SubjectPlan(DesiredSubject(name, file, List("heartbeat"), Nil), status, "BACKWARD", None)

  private val create = TopicChange.Create("hb", 3, 1, Map("retention.ms" -> "900000"))
  private val unchanged = subject("hb-nl.openweb.data.Heartbeat", SubjectStatus.Unchanged(1, 1))
  private val incompatible =
    subject("commands-nl.openweb.data.Heartbeat", SubjectStatus.Incompatible("BACKWARD", List("READER_FIELD_MISSING_DEFAULT_VALUE: node")))

  test("plan: pending changes alone are a warning, counted; an incompatible subject fails the heading and is named with its reason") {
    val pending = DeploySummary.plan(TopicPlan(List(create), Nil), SchemaPlan(List(unchanged, subject("x", SubjectStatus.New))), Nil).markdown
    assert(pending.startsWith("### bankops plan: 2 changes pending, none refused :warning:"), pending)
    assertEquals(MarkdownCheck.problems(pending), Nil)
    assert(MarkdownCheck.tableRows(pending).contains(List("hb", "create", "3 partitions, replication 1, retention.ms=900000")), pending)
    val refused = DeploySummary.plan(TopicPlan(Nil, Nil), SchemaPlan(List(unchanged, incompatible)), Nil).markdown
    assert(refused.startsWith("### bankops plan: the gate refuses: commands-nl.openweb.data.Heartbeat :x:"), refused)
    assert(refused.contains("- **subjects incompatible**: 1"), refused)
    assert(refused.contains("incompatible: `commands-nl.openweb.data.Heartbeat`: refused under BACKWARD: READER_FIELD_MISSING_DEFAULT_VALUE: node"),
      refused)
    assertEquals(MarkdownCheck.problems(refused), Nil)
    val clean = DeploySummary.plan(TopicPlan(Nil, Nil), SchemaPlan(List(unchanged)), Nil).markdown
    assert(clean.startsWith("### bankops plan: no changes, the cluster and the registry match the topology :white_check_mark:"), clean)
  }

  test("apply: each topic change with its result, registered subjects marked; a refused change means nothing was made") {
    val made = DeploySummary.apply(TopicPlan(List(create), Nil), SchemaPlan(List(subject("y", SubjectStatus.New))), Nil, List(Outcome(create, None)),
      0).markdown
    assert(made.startsWith("### bankops apply: 1 topic changes made, 1 subjects registered or set :white_check_mark:"), made)
    assert(MarkdownCheck.tableRows(made).contains(List("hb", "create", "3 partitions, replication 1, retention.ms=900000", "done")), made)
    assert(MarkdownCheck.tableRows(made).contains(List("`y`", "registered", "register version 1")), made)
    val gate = DeploySummary.apply(TopicPlan(List(create), Nil), SchemaPlan(List(incompatible)), Nil, Nil, 1).markdown
    assert(gate.startsWith("### bankops apply: the gate failed; nothing was changed, neither topics nor schemas (nor ACLs or users) :x:"), gate)
    assert(MarkdownCheck.tableRows(gate).contains(List("hb", "create", "3 partitions, replication 1, retention.ms=900000", "not made")), gate)
    assertEquals(MarkdownCheck.problems(gate), Nil)
  }

  test("ACLs and users get their own tables when the topology manages them; drift counted; a missing password is a gate refusal") {
    val acl = AclEntry("User:handler", "TOPIC", "commands", "LITERAL", "READ")
    val access = AccessPlan(managesAcls = true, managesUsers = true,
      List(AclChange("add", acl), AclChange("unlisted", acl.copy(principal = "User:x"))),
      List(UserChange("create", "loader", "SCRAM-SHA-512")), Nil)
    val pending = DeploySummary.plan(TopicPlan(Nil, Nil), SchemaPlan(List(unchanged)), Nil, access).markdown
    assert(pending.startsWith("### bankops plan: 2 changes pending, none refused :warning:"), pending)
    assert(pending.contains("- **ACLs/users unlisted (drift)**: 1"), pending)
    assert(MarkdownCheck.tableRows(pending).contains(List("add", "`User:handler`", "ALLOW READ", "`topic:commands`", "not made")), pending)
    assert(MarkdownCheck.tableRows(pending).contains(List("unlisted", "`User:x`", "ALLOW READ", "`topic:commands`", "")), pending)
    assertEquals(MarkdownCheck.problems(pending), Nil)
    val refused =
      access.copy(refusals = List("refused: users.loader: the environment variable P holding the password of SCRAM user loader is not set"))
    val gate = DeploySummary.apply(TopicPlan(List(create), Nil), SchemaPlan(List(unchanged)), Nil, Nil, 2, refused).markdown
    assert(gate.startsWith("### bankops apply: the gate failed; nothing was changed, neither topics nor schemas (nor ACLs or users) :x:"), gate)
    assert(gate.contains("environment variable P"), gate)
    val schemasFailed = DeploySummary.apply(TopicPlan(Nil, Nil), SchemaPlan(List(unchanged)), Nil, Nil, 1, access, accessDone = true).markdown
    assert(MarkdownCheck.tableRows(schemasFailed).contains(List("add", "`User:handler`", "ALLOW READ", "`topic:commands`", "done")),
      s"ACLs made before a later step failed are marked done: $schemasFailed")
    assert(MarkdownCheck.tableRows(schemasFailed).contains(List("create", "`loader`", "SCRAM-SHA-512", "create with the declared password", "done")),
      schemasFailed)
    val none = DeploySummary.plan(TopicPlan(Nil, Nil), SchemaPlan(List(unchanged)), Nil).markdown
    assert(!none.contains("acls") && !none.contains("ACL"), none)
  }
}

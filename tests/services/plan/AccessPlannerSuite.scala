package bankops.services.plan

import bankops.services.contracts.{Access, Grant, NamePattern, PasswordSource, Role, ScramUser, Topology, TopologyFile}
import bankops.support.Repo

class AccessPlannerSuite extends munit.FunSuite {

  private def lit(n: String) = NamePattern(n, prefixed = false)
  private def pre(n: String) = NamePattern(n, prefixed = true)
  private def acl(rt: String, name: String, op: String, pattern: String = "LITERAL", principal: String = "User:a") =
    AclEntry(principal, rt, name, pattern, op)

  private def expand(g: Grant): Set[AclEntry] = AclExpansion.grant("User:a", g).toSet

  test("consumer: topic READ + DESCRIBE, group READ for its group or group prefix, none without a group") {
    assertEquals(expand(Grant(Role.Consumer, List(lit("t")), Some(lit("g")), None)),
      Set(acl("TOPIC", "t", "READ"), acl("TOPIC", "t", "DESCRIBE"), acl("GROUP", "g", "READ")))
    assertEquals(expand(Grant(Role.Consumer, List(pre("bank")), Some(pre("bankops-reader-")), None)),
      Set(acl("TOPIC", "bank", "READ", "PREFIXED"), acl("TOPIC", "bank", "DESCRIBE", "PREFIXED"),
        acl("GROUP", "bankops-reader-", "READ", "PREFIXED")))
    assertEquals(expand(Grant(Role.Consumer, List(lit("t")), None, None)), Set(acl("TOPIC", "t", "READ"), acl("TOPIC", "t", "DESCRIBE")))
  }

  test("producer: topic WRITE + DESCRIBE and nothing on the cluster (no IdempotentWrite: KIP-679)") {
    assertEquals(expand(Grant(Role.Producer, List(lit("t"), lit("u")), None, None)),
      Set(acl("TOPIC", "t", "WRITE"), acl("TOPIC", "t", "DESCRIBE"), acl("TOPIC", "u", "WRITE"), acl("TOPIC", "u", "DESCRIBE")))
  }

  test("transactional producer: topic WRITE + DESCRIBE, TRANSACTIONAL_ID WRITE + DESCRIBE on its prefix") {
    assertEquals(expand(Grant(Role.TransactionalProducer, List(lit("t")), None, Some(pre("bankops-command-handler")))),
      Set(acl("TOPIC", "t", "WRITE"), acl("TOPIC", "t", "DESCRIBE"), acl("TRANSACTIONAL_ID", "bankops-command-handler", "WRITE", "PREFIXED"),
        acl("TRANSACTIONAL_ID", "bankops-command-handler", "DESCRIBE", "PREFIXED")))
  }

  test("admin: the topic operations create, delete, alter, alter-configs, describe, describe-configs") {
    assertEquals(expand(Grant(Role.Admin, List(lit("t")), None, None)), AclExpansion.AdminOperations.map(acl("TOPIC", "t", _)).toSet)
  }

  test("expansion across grants has no duplicates (DESCRIBE from consumer and producer on one topic is one ACL)") {
    val acls = AclExpansion.expand(List(Access("User:a",
          List(Grant(Role.Consumer, List(lit("t")), None, None), Grant(Role.Producer, List(lit("t")), None, None)))))
    assertEquals(acls.count(_.operation == "DESCRIBE"), 1)
    assertEquals(acls.size, 3)
  }

  private val topology = Topology(os.pwd / "topology.json", bankops.services.contracts.SubjectNameStrategy.TopicRecord, Nil, Map.empty,
    access = Some(List(Access("User:a", List(Grant(Role.Producer, List(lit("t")), None, None))))),
    users = Some(List(ScramUser("loader", "SCRAM-SHA-512", PasswordSource.Env("X")), ScramUser("reader", "SCRAM-SHA-512", PasswordSource.Env("Y")))))

  private val wanted = List(acl("TOPIC", "t", "DESCRIBE"), acl("TOPIC", "t", "WRITE"))
  private val outside = acl("TOPIC", "t", "READ", principal = "User:someone")

  test("diff: missing ACLs are added, the cluster's others are drift and left alone; with deleteUnlisted, deleted") {
    val p = AccessPlanner.plan(topology, AccessState(Right(List(wanted.head, outside)), Map.empty), deleteUnlisted = false)
    assertEquals(p.acls, List(AclChange("add", wanted(1)), AclChange("unlisted", outside)))
    assertEquals((p.changes, p.drift), (1 + 2, 1), "one ACL and two users to create")
    val d = AccessPlanner.plan(topology, AccessState(Right(List(outside) ++ wanted), Map.empty), deleteUnlisted = true)
    assertEquals(d.aclChanges, List(AclChange("delete", outside)))
  }

  test("users: missing ones created, present ones in place (passwords not compared), undeclared ones and mechanisms drift") {
    val creds = Map("loader" -> Set("SCRAM-SHA-512", "SCRAM-SHA-256"), "stranger" -> Set("SCRAM-SHA-512"))
    val p = AccessPlanner.plan(topology, AccessState(Right(wanted), creds), deleteUnlisted = false)
    assertEquals(p.users,
      List(UserChange("present", "loader", "SCRAM-SHA-512"), UserChange("create", "reader", "SCRAM-SHA-512"),
        UserChange("unlisted", "loader", "SCRAM-SHA-256"), UserChange("unlisted", "stranger", "SCRAM-SHA-512")))
    assertEquals(p.changes, 1)
    val after = AccessPlanner.plan(topology, AccessState(Right(wanted), creds + ("reader" -> Set("SCRAM-SHA-512"))), deleteUnlisted = false)
    assert(after.isEmpty, after)
  }

  test("a cluster without an authorizer refuses declared access; a topology without access or users plans nothing") {
    val p = AccessPlanner.plan(topology, AccessState(Left("no authorizer"), Map.empty), deleteUnlisted = false)
    assert(p.refused && p.refusals.head.contains("no authorizer"), p)
    val none = AccessPlanner.plan(topology.copy(access = None, users = None), AccessState(Right(List(outside)), Map("x" -> Set("SCRAM-SHA-512"))),
      deleteUnlisted = true)
    assertEquals(none, AccessPlan.unmanaged)
  }

  test("passwords come from the named variable or file; missing ones are one line naming the source") {
    val file = os.temp("s3cret\n")
    assertEquals(AccessSync.password("u", PasswordSource.Env("P"), Map("P" -> "pw")), Right("pw"))
    assertEquals(AccessSync.password("u", PasswordSource.File(file), Map.empty), Right("s3cret"))
    assertEquals(AccessSync.password("u", PasswordSource.Env("P"), Map.empty),
      Left("refused: users.u: the environment variable P holding the password of SCRAM user u is not set"))
    assertEquals(AccessSync.password("u", PasswordSource.File(file / os.up / "nope"), Map.empty),
      Left(s"refused: users.u: password file of SCRAM user u: ${file / os.up / "nope"}: no such file"))
  }

  test("the bank's topology: the handler cannot write commands, the reader writes nothing, no other group covers the handler's") {
    val t = TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(fail(_), identity)
    val acls = AclExpansion.expand(t.access.getOrElse(fail("the bank declares access")))
    def of(p: String) = acls.filter(_.principal == s"User:$p")
    assert(!of("handler").exists(a => a.name == "commands" && a.operation == "WRITE"), of("handler"))
    assertEquals(of("handler").filter(_.resourceType == "GROUP").map(_.name), List("bankops-command-handler"))
    assert(of("reader").forall(_.operation != "WRITE"), of("reader"))
    val others = acls.filter(a => a.resourceType == "GROUP" && a.principal != "User:handler")
    assert(others.nonEmpty && others.forall(g => g.patternType == "PREFIXED" && !"bankops-command-handler".startsWith(g.name)), others)
    assertEquals(
      t.users.map(_.map(u => u.name -> u.password)),
      Some(List("operator", "handler", "loader", "reader").map(n =>
          n -> PasswordSource.Env(s"BANKOPS_SCRAM_${n.toUpperCase}_PASSWORD"))))
  }
}

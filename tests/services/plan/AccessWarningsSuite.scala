package bankops.services.plan

import bankops.services.contracts.{Access, Grant, NamePattern, PasswordSource, Role, ScramUser, SubjectNameStrategy, Topology}

/** Access as code Kafka takes but an operator rarely means is named; the bank's own topology draws no warning. */
class AccessWarningsSuite extends munit.FunSuite {
  private val dir = os.temp.dir(prefix = "access-warnings")

  private def topology(access: List[Access], users: List[ScramUser] = Nil) =
    Topology(dir / "topology.json", SubjectNameStrategy.TopicRecord, Nil, Map.empty, access = Some(access), users = Some(users))

  test("a grant to User:*, a '*' in a prefix, a readable password file, one outside the topology's folder") {
    val readable = dir / "loader.pw"
    os.write.over(readable, "pw", perms = "rw-r--r--")
    val outside = os.temp("pw", perms = "rw-------")
    val t = topology(
      List(Access("User:*", List(Grant(Role.Consumer, List(NamePattern("*", prefixed = true)), Some(NamePattern("g", prefixed = false)), None)))),
      List(ScramUser("loader", "SCRAM-SHA-512", PasswordSource.File(readable)), ScramUser("far", "SCRAM-SHA-512", PasswordSource.File(outside))))
    assertEquals(AccessWarnings.of(t),
      List(
        "access.User:*: grants every principal (any certificate or SCRAM user); name each service instead",
        "access.User:*[0].topicPrefix: '*' is a literal prefix to Kafka (only names starting with '*'), not a wildcard",
        s"users.loader.password.file $readable is readable by its group and every user (chmod 600 it)",
        s"users.far.password.file $outside is outside the topology's folder $dir"
      ))
    assertEquals(NamePattern("*", prefixed = true).show, "'*'*")
  }

  test("the bank's topology: no warning") {
    val bank = bankops.services.contracts.TopologyFile.load(bankops.support.Repo.root / "schemas" / "topology.json").fold(e => fail(e), identity)
    assertEquals(AccessWarnings.of(bank), Nil)
  }
}

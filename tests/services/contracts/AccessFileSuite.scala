package bankops.services.contracts

import bankops.support.TopologyFiles

class AccessFileSuite extends munit.FunSuite {

  private val topics =
    TopologyFiles.topology(("commands", 1, Map.empty, "Heartbeat", "time"), ("balance_changed", 1, Map.empty, "Heartbeat", "time"))

  /** The topology with `sections` (`"access": {...}`) added at its top level. */
  private def load(sections: String): Either[String, Topology] = {
    val file = TopologyFiles.write(topics.stripSuffix("}") + s", $sections}")
    TopologyFile.load(file).left.map { e => assert(e.startsWith(file.toString), e); e.stripPrefix(file.toString + ": ") }
  }

  private def error(sections: String): String = load(sections).fold(identity, t => fail(s"loaded $t"))

  test("access and users read: roles, literal and prefixed names, password sources (a relative file next to the topology)") {
    val t = load(
      """"access": {"User:handler": [{"role": "consumer", "topics": ["commands"], "group": "bankops-command-handler"},
        |  {"role": "transactional-producer", "topics": ["balance_changed"], "transactionalIdPrefix": "bankops-command-handler"}],
        | "User:reader": [{"role": "consumer", "topicPrefix": "bank", "groupPrefix": "bankops-reader-"}]},
        |"users": {"loader": {"mechanism": "SCRAM-SHA-256", "password": {"env": "BANKOPS_SCRAM_LOADER_PASSWORD"}},
        | "reader": {"password": {"file": "reader.password"}}}""".stripMargin).fold(fail(_), identity)
    assertEquals(t.access.map(_.map(_.principal)), Some(List("User:handler", "User:reader")))
    assertEquals(t.access.get.head.grants,
      List(
        Grant(Role.Consumer, List(NamePattern("commands", prefixed = false)), Some(NamePattern("bankops-command-handler", prefixed = false)), None),
        Grant(Role.TransactionalProducer, List(NamePattern("balance_changed", prefixed = false)), None,
          Some(NamePattern("bankops-command-handler", prefixed = true)))))
    assertEquals(t.access.get(1).grants.head.topics, List(NamePattern("bank", prefixed = true)))
    assertEquals(t.users.get.head, ScramUser("loader", "SCRAM-SHA-256", PasswordSource.Env("BANKOPS_SCRAM_LOADER_PASSWORD")))
    assertEquals(t.users.get(1).mechanism, "SCRAM-SHA-512", "the default mechanism")
    assertEquals(t.users.get(1).password, PasswordSource.File(t.file / os.up / "reader.password"))
  }

  test("a topology without access or users manages neither") {
    val t = TopologyFile.load(TopologyFiles.write(topics)).fold(fail(_), identity)
    assertEquals((t.access, t.users), (None, None))
  }

  test("errors name their path: unknown role, unknown key, undeclared topic, empty principal, role-specific keys") {
    assertEquals(error(""""access": {"User:a": [{"role": "reader", "topics": ["commands"]}]}"""),
      "access.User:a[0].role: unknown role 'reader' (known: consumer, producer, transactional-producer, admin)")
    assertEquals(error(""""access": {"User:a": [{"role": "consumer", "topic": ["commands"]}]}"""),
      "access.User:a[0].topic: unknown key (expected group, groupPrefix, role, topicPrefix, topics, transactionalId, transactionalIdPrefix)")
    assertEquals(error(""""access": {"User:a": [{"role": "producer", "topics": ["commands", "nope"]}]}"""),
      "access.User:a[0].topics[1]: topic 'nope' is not declared in the topology (declare it, or grant it with topicPrefix)")
    assertEquals(error(""""access": {"": [{"role": "producer", "topics": ["commands"]}]}"""), "access: an empty principal (write User:<name>)")
    assertEquals(error(""""access": {"User:": [{"role": "producer", "topics": ["commands"]}]}"""),
      "access.User:: a principal is User:<name> (the certificate's CN or the SCRAM user), got 'User:'")
    assertEquals(error(""""access": {"handler": [{"role": "producer", "topics": ["commands"]}]}"""),
      "access.handler: a principal is User:<name> (the certificate's CN or the SCRAM user), got 'handler'")
    assertEquals(error(""""access": {"User:a": []}"""), "access.User:a: grants nothing (remove the principal, or give it a role)")
    assertEquals(error(""""access": {"User:a": [{"role": "producer"}]}"""), "access.User:a[0]: names no topic (give topics or topicPrefix)")
    assertEquals(error(""""access": {"User:a": [{"role": "producer", "topics": ["commands"], "group": "g"}]}"""),
      "access.User:a[0]: group/groupPrefix belongs to the consumer role, not producer")
    assertEquals(error(""""access": {"User:a": [{"role": "transactional-producer", "topics": ["commands"]}]}"""),
      "access.User:a[0].transactionalIdPrefix: missing (or transactionalId)")
    assertEquals(error(""""access": {"User:a": [{"role": "consumer", "topics": ["commands"], "group": "g", "groupPrefix": "g"}]}"""),
      "access.User:a[0]: group and groupPrefix exclude each other")
  }

  test("users: a password is never in the topology; mechanisms and names checked") {
    assertEquals(error(""""users": {"loader": {"password": "secret"}}"""),
      """users.loader.password: must be {"env": "VARIABLE"} or {"file": "PATH"}; a password never goes in the topology""")
    assertEquals(error(""""users": {"loader": {"password": {"env": "A", "file": "b"}}}"""),
      """users.loader.password: must be {"env": "VARIABLE"} or {"file": "PATH"}; a password never goes in the topology""")
    assertEquals(error(""""users": {"loader": {"mechanism": "PLAIN", "password": {"env": "A"}}}"""),
      "users.loader.mechanism: 'PLAIN' is not one of SCRAM-SHA-512, SCRAM-SHA-256")
    assertEquals(error(""""users": {"loader": {"password": {"env": "not a name"}}}"""),
      "users.loader.password.env: 'not a name' is not an environment variable name")
    assertEquals(error(""""users": {"lo ader": {"password": {"env": "A"}}}"""),
      "users.lo ader: 'lo ader' is not a user name bankops accepts (letters, digits, '.', '_', '@', '-')")
    assertEquals(error(""""users": {"loader": {}}"""), "users.loader.password: missing")
  }
}

package bankops.jobs.doctor

import org.apache.kafka.common.acl.{AccessControlEntry, AclBinding, AclOperation, AclPermissionType}
import org.apache.kafka.common.acl.AclOperation._
import org.apache.kafka.common.resource.{PatternType, ResourcePattern, ResourceType}

import bankops.services.bank.BankNames

/** What each job needs, and Kafka's authorizer's rule over ACLs read back, as doctor applies it. */
class AccessSuite extends munit.FunSuite {
  private def acl(principal: String, op: AclOperation, tpe: ResourceType, name: String, pattern: PatternType = PatternType.LITERAL,
                  permission: AclPermissionType = AclPermissionType.ALLOW) =
    new AclBinding(new ResourcePattern(tpe, name, pattern), new AccessControlEntry(principal, "*", op, permission))

  private val reader = Set("User:CN=reader,O=bank", "User:reader")
  private def needs(job: String) = JobNeeds.table.toMap.apply(job)

  // The reader of SHARED-24: read (and describe) every bank topic, groups prefixed bankops-reader-, no write.
  private val readerAcls = List(BankNames.Heartbeat, BankNames.Commands, BankNames.DeadLetters, BankNames.Feedback, BankNames.BalanceChanged)
    .flatMap(t => List(acl("User:reader", READ, ResourceType.TOPIC, t), acl("User:reader", DESCRIBE, ResourceType.TOPIC, t))) :+
    acl("User:reader", READ, ResourceType.GROUP, "bankops-reader-", PatternType.PREFIXED)

  test("the reader holds inspect and balances, and misses every write, named") {
    assertEquals(AclView.missing(readerAcls, reader, needs("inspect")), Nil)
    assertEquals(AclView.missing(readerAcls, reader, needs("balances")), Nil)
    assertEquals(AclView.missing(readerAcls, reader, needs("produce")).map(_.text), List("WRITE topic commands"))
    assertEquals(JobNeeds.summary(AclView.missing(readerAcls, reader, needs("handler"))),
      "READ group bankops-command-handler; WRITE topics command_feedback, balance_changed, commands.dlq; " +
        "WRITE transactional-id bankops-command-handler*")
  }

  test("the handler's ACLs: a prefixed transactional id covers the prefix; READ implies DESCRIBE, WRITE does not imply READ") {
    val handler = List(acl("User:handler", READ, ResourceType.TOPIC, "commands"),
      acl("User:handler", READ, ResourceType.GROUP, "bankops-command-handler"),
      acl("User:handler", READ, ResourceType.TOPIC, "command_feedback")) ++
      List("command_feedback", "balance_changed", "commands.dlq").map(acl("User:handler", WRITE, ResourceType.TOPIC, _)) :+
      acl("User:handler", WRITE, ResourceType.TRANSACTIONAL_ID, "bankops-command-handler", PatternType.PREFIXED)
    val me = Set("User:handler")
    assertEquals(AclView.missing(handler, me, needs("handler")), Nil)
    assertEquals(AclView.missing(handler, me, needs("produce")).map(_.text), List("WRITE topic commands"))
    assert(AclView.holds(handler, me, Need(DESCRIBE, ResourceType.TOPIC, "commands")))
    assert(!AclView.holds(handler, me, Need(READ, ResourceType.TOPIC, "balance_changed")))
    // A prefix that does not cover the handler's ids.
    val narrow = List(acl("User:handler", WRITE, ResourceType.TRANSACTIONAL_ID, "bankops-command-handler-x", PatternType.PREFIXED))
    assert(!AclView.holds(narrow, me, Need(WRITE, ResourceType.TRANSACTIONAL_ID, "bankops-command-handler", prefixed = true)))
  }

  test("wildcards, User:*, ALL, and DENY winning over ALLOW; other principals' ACLs do not count") {
    val w = Need(WRITE, ResourceType.TOPIC, "heartbeat")
    assert(AclView.holds(List(acl("User:*", WRITE, ResourceType.TOPIC, "*")), reader, w))
    assert(AclView.holds(List(acl("User:reader", ALL, ResourceType.TOPIC, "heart", PatternType.PREFIXED)), reader, w))
    assert(!AclView.holds(List(acl("User:loader", WRITE, ResourceType.TOPIC, "heartbeat")), reader, w))
    assert(!AclView.holds(List(acl("User:reader", WRITE, ResourceType.TOPIC, "heartbeat"),
          acl("User:*", WRITE, ResourceType.TOPIC, "heartbeat", permission = AclPermissionType.DENY)), reader, w))
    // The certificate's whole subject, as the DEFAULT mapping rule names it, is one of the candidates.
    assert(AclView.holds(List(acl("User:CN=reader,O=bank", WRITE, ResourceType.TOPIC, "heartbeat")), reader, w))
    assert(AclView.holds(List(acl("User:reader", ALTER_CONFIGS, ResourceType.TOPIC, "heartbeat")), reader,
        Need(DESCRIBE_CONFIGS, ResourceType.TOPIC, "heartbeat")))
  }

  test("every job's needs name the bank's default topics and group") {
    val names = JobNeeds.table.flatMap(_._2).map(_.name).toSet
    assertEquals(names,
      Set(BankNames.Heartbeat, BankNames.Commands, BankNames.DeadLetters, BankNames.Feedback, BankNames.BalanceChanged,
        BankNames.HandlerGroup, "kafka-cluster"))
    assert(JobNeeds.jobs.toSet.subsetOf(Set("inspect", "produce", "heartbeat", "replay", "balances", "capture", "latency", "handler", "groups",
          "plan",
          "apply")))
  }
}

package bankops.services.plan

import bankops.services.contracts.{Topology, TopologyFile}
import bankops.support.Repo

class TopicPlannerSuite extends munit.FunSuite {
  private val topology: Topology = TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(fail(_), identity)

  /** The cluster as it is right after a correct apply, with broker defaults for undeclared keys. */
  private def applied(brokers: Int, topology: Topology = topology): ClusterState = ClusterState(brokers,
    topology.topics.map { t =>
      t.name -> ClusterTopic(t.name, t.partitions, t.replicationFactor,
        Map("cleanup.policy" -> "delete", "retention.ms" -> "604800000", "segment.bytes" -> "1073741824") ++ t.config)
    }.toMap)

  private val single = topology.in("single-broker").fold(fail(_), identity)

  test("an empty cluster of fewer brokers than replicas: every topic is created as declared, never capped, and the plan says why it won't fit") {
    val plan = TopicPlanner.plan(topology, ClusterState(1, Map.empty))
    assertEquals(plan.changes, topology.topics.map(t => TopicChange.Create(t.name, t.partitions, 3, t.config)))
    assertEquals(plan.warnings.collect { case w: TopicWarning.TooFewBrokers => w.topic }, topology.topics.map(_.name))
    assert(plan.warnings.head.message.contains("--environment"), plan.warnings.head.message)
  }

  test("the single-broker environment: replication 1 and min.insync.replicas 1 on every topic, stated in the plan") {
    val plan = TopicPlanner.plan(single, ClusterState(1, Map.empty))
    assertEquals(plan.changes,
      topology.topics.map(t =>
        TopicChange.Create(t.name, t.partitions, 1, t.config.updated("min.insync.replicas", "1"))))
    assertEquals(plan.warnings, Nil)
    assertEquals(plan.environment, List("environment single-broker: replicationFactor 1, min.insync.replicas=1 on every topic"))
    assert(topology.topics.forall(t => t.replicationFactor == 3 && t.config.get("min.insync.replicas").contains("2")))
  }

  test("an unknown environment is an error naming the declared ones") {
    assertEquals(topology.in("prod").left.map(_.replaceAll("^[^:]*: ", "")), Left("no environment 'prod' (declared: single-broker)"))
  }

  test("after apply the plan is empty: broker defaults for undeclared keys are not drift") {
    assertEquals(TopicPlanner.plan(single, applied(1, single)).changes, Nil)
    assertEquals(TopicPlanner.plan(topology, applied(3)), TopicPlan(Nil, Nil))
  }

  test("more partitions declared than exist: add partitions") {
    val c = applied(1)
    val cluster = c.copy(topics = c.topics.updated("commands", c.topics("commands").copy(partitions = 3)))
    assertEquals(TopicPlanner.plan(topology, cluster).changes, List(TopicChange.AddPartitions("commands", 3, 9)))
  }

  test("a declared config changed out of band is set back; equal values in other spellings are not") {
    val c = applied(1)
    val drifted = c.copy(topics = c.topics.updated("heartbeat",
      c.topics("heartbeat").copy(config = c.topics("heartbeat").config.updated("retention.ms", "1000"))))
    assertEquals(TopicPlanner.plan(topology, drifted).changes, List(TopicChange.SetConfig("heartbeat", "retention.ms", Some("1000"), "900000")))
    val spelled = c.copy(topics = c.topics.updated("heartbeat",
      c.topics("heartbeat").copy(config = c.topics("heartbeat").config.updated("retention.ms", " 900000"))))
    assert(TopicPlanner.plan(topology, spelled).isEmpty)
  }

  test("refusals: fewer partitions declared than exist, or another replication factor, are warnings and no change") {
    val c = applied(3)
    val cluster = c.copy(topics = c.topics
      .updated("commands", c.topics("commands").copy(partitions = 12))
      .updated("balance_changed", c.topics("balance_changed").copy(replicationFactor = 2)))
    val plan = TopicPlanner.plan(topology, cluster)
    assertEquals(plan.changes, Nil)
    assertEquals(plan.warnings.toSet,
      Set[TopicWarning](
        TopicWarning.FewerPartitionsDeclared("commands", 9, 12), TopicWarning.ReplicationDiffers("balance_changed", 3, 2)))
  }

  test("never delete: unlisted topics stay unless asked, and internal topics stay even then") {
    val c = applied(1)
    val cluster = c.copy(topics = c.topics ++ List("legacy", "__consumer_offsets", "_schemas").map(n => n -> ClusterTopic(n, 1, 1, Map.empty)))
    assertEquals(TopicPlanner.plan(topology, cluster).changes, Nil)
    assertEquals(TopicPlanner.plan(topology, cluster, deleteUnlisted = true).changes, List(TopicChange.Delete("legacy")))
  }
}

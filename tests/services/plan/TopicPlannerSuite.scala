package bankops.services.plan

import bankops.services.contracts.{Topology, TopologyFile}
import bankops.support.Repo

class TopicPlannerSuite extends munit.FunSuite {
  private val topology: Topology = TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(fail(_), identity)

  /** The cluster as it is right after a correct apply, with broker defaults for undeclared keys. */
  private def applied(brokers: Int): ClusterState = ClusterState(brokers,
    topology.topics.map { t =>
      t.name -> ClusterTopic(t.name, t.partitions, t.replicationFactor min brokers,
        Map("cleanup.policy" -> "delete", "retention.ms" -> "604800000", "segment.bytes" -> "1073741824") ++ t.config)
    }.toMap)

  test("an empty cluster: every topic is created, replication capped at the brokers with a warning") {
    val plan = TopicPlanner.plan(topology, ClusterState(1, Map.empty))
    assertEquals(plan.changes, topology.topics.map(t => TopicChange.Create(t.name, t.partitions, 1, t.config)))
    assertEquals(plan.warnings.collect { case w: TopicWarning.ReplicationCapped => w.topic }, topology.topics.map(_.name))
  }

  test("after apply the plan is empty: broker defaults for undeclared keys are not drift") {
    assertEquals(TopicPlanner.plan(topology, applied(1)), TopicPlan(Nil, Nil))
    assertEquals(TopicPlanner.plan(topology, applied(3)), TopicPlan(Nil, Nil))
  }

  test("more partitions declared than exist: add partitions") {
    val c = applied(1)
    val cluster = c.copy(topics = c.topics.updated("commands", c.topics("commands").copy(partitions = 3)))
    assertEquals(TopicPlanner.plan(topology, cluster).changes, List(TopicChange.AddPartitions("commands", 3, 9)))
  }

  test("a declared config changed out of band is set back; equal values in other spellings are not") {
    val c = applied(1)
    val drifted = c.copy(topics = c.topics.updated("heartbeat", c.topics("heartbeat").copy(config = Map("retention.ms" -> "1000"))))
    assertEquals(TopicPlanner.plan(topology, drifted).changes, List(TopicChange.SetConfig("heartbeat", "retention.ms", Some("1000"), "900000")))
    val spelled = c.copy(topics = c.topics.updated("heartbeat", c.topics("heartbeat").copy(config = Map("retention.ms" -> " 900000"))))
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

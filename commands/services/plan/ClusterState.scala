package bankops.services.plan

/** A topic as the cluster has it; `config` holds effective values of the keys asked about. */
final case class ClusterTopic(name: String, partitions: Int, replicationFactor: Int, config: Map[String, String])

/** What the plan compares the topology with. */
final case class ClusterState(brokers: Int, topics: Map[String, ClusterTopic])

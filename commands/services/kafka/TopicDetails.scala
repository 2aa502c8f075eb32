package bankops.services.kafka

import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource

import java.time.Instant

/** One partition as the cluster has it. Offsets are absent when its leader could not be asked (an offline partition);
  * `replicaSizes` is each broker's replica size on disk; the record times come from the broker's time index: the
  * first record's (in offset order) and the largest.
  */
final case class PartitionDetails(
    partition: Int,
    leader: Option[Int],
    replicas: List[Int],
    isr: List[Int],
    logStart: Option[Long],
    lastStable: Option[Long],
    end: Option[Long],
    replicaSizes: Map[Int, Long],
    firstRecord: Option[Instant],
    lastRecord: Option[Instant]
) {
  def underReplicated: Boolean = isr.size < replicas.size
  def offline: Boolean = leader.isEmpty

  /** The leader's replica size (what readers fetch from), else the largest replica's. */
  def size: Option[Long] = leader.flatMap(replicaSizes.get).orElse(replicaSizes.values.maxOption)

  def flags: List[String] = (if (offline) List("offline") else Nil) ++ (if (underReplicated) List("under-replicated") else Nil)
}

/** A topic config as the broker resolves it: the value in force, where it comes from, and the lower-precedence values
  * it overrides (a broker's `log.retention.hours` under a topic's `retention.ms`). A sensitive value is never shown.
  */
final case class ConfigSetting(name: String, value: Option[String], source: String, sensitive: Boolean, overrides: List[ConfigSetting] = Nil)

object ConfigSetting {
  /** Kafka's sources, named by where an operator would change them. */
  def sourceName(s: ConfigSource): String = s match {
    case ConfigSource.DYNAMIC_TOPIC_CONFIG => "topic"
    case ConfigSource.DEFAULT_CONFIG => "default"
    case ConfigSource.STATIC_BROKER_CONFIG => "broker"
    case ConfigSource.DYNAMIC_BROKER_CONFIG => "broker-dynamic"
    case ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG => "cluster-dynamic"
    case other => other.name.toLowerCase.replace('_', '-')
  }
}

/** A topic: its partitions in order and its configs by name. */
final case class TopicDetails(name: String, internal: Boolean, topicId: String, partitions: List[PartitionDetails], configs: List[ConfigSetting]) {
  def replicationFactor: Int = partitions.map(_.replicas.size).maxOption.getOrElse(0)
  def underReplicated: List[Int] = partitions.filter(_.underReplicated).map(_.partition)
  def offline: List[Int] = partitions.filter(_.offline).map(_.partition)

  /** The values in force (not the sensitive ones), as the topology is compared with them. */
  def effectiveConfig: Map[String, String] = configs.collect { case ConfigSetting(n, Some(v), _, false, _) => n -> v }.toMap
}

/** A line of `topics list`: leadership and replication only, no offsets or configs. */
final case class TopicOverview(name: String, internal: Boolean, partitions: Int, replicationFactor: Int, underReplicated: Int, offline: Int)

/** What `describe` read: the brokers' count (the planner compares the topology's replication with it), the topics asked for, and
  * what could not be read (sizes without permission to describe log directories, offsets of a partition without leader).
  */
final case class DescribedTopics(brokers: Int, topics: List[TopicDetails], warnings: List[String])

package bankops.services.kafka

/** A topic: its partitions in order and its configs by name. */
final case class TopicDetails(name: String, internal: Boolean, topicId: String, partitions: List[PartitionDetails], configs: List[ConfigSetting]) {
  def replicationFactor: Int = partitions.map(_.replicas.size).maxOption.getOrElse(0)
  def underReplicated: List[Int] = partitions.filter(_.underReplicated).map(_.partition)
  def offline: List[Int] = partitions.filter(_.offline).map(_.partition)

  /** The values in force (not the sensitive ones), as the topology is compared with them. */
  def effectiveConfig: Map[String, String] = configs.collect { case ConfigSetting(n, Some(v), _, false, _) => n -> v }.toMap
}

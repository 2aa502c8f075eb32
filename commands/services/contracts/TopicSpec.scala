package bankops.services.contracts

/** A declared topic. `config` values are already in Kafka's canonical form (see [[ConfigValues]]). */
final case class TopicSpec(
    name: String,
    partitions: Int,
    replicationFactor: Int,
    config: Map[String, String],
    records: List[TopicRecord]
)

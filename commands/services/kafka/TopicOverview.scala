package bankops.services.kafka

/** A line of `topics list`: leadership and replication only, no offsets or configs. */
final case class TopicOverview(name: String, internal: Boolean, partitions: Int, replicationFactor: Int, underReplicated: Int, offline: Int)

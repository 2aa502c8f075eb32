package bankops.services.kafka

/** What `describe` read: the brokers' count (the planner compares the topology's replication with it), the topics asked for, and
  * what could not be read (sizes without permission to describe log directories, offsets of a partition without leader).
  */
final case class DescribedTopics(brokers: Int, topics: List[TopicDetails], warnings: List[String])

package bankops.services.kafka

import org.apache.kafka.common.acl.AclOperation
import org.apache.kafka.common.acl.AclOperation._

/** What bankops was doing when Kafka's authorizer refused it. Kafka's exceptions name the resource (the topics, the
  * group) but never the operation, which depends on the request: a producer's send needs WRITE on its topic, a
  * consumer's fetch READ, an admin's describe DESCRIBE. The code that makes the request says which ([[Doing]]'s
  * constructors), and [[Denied]] turns the exception into the one line naming operation, resource and identity.
  * `UNKNOWN` operations are the net under code that does not say.
  */
final case class Doing(
    topicOp: AclOperation,
    topics: List[String] = Nil,
    groupOp: AclOperation = UNKNOWN,
    group: Option[String] = None,
    clusterOp: AclOperation = UNKNOWN,
    transactionalId: Option[String] = None,
    perTopic: Map[String, AclOperation] = Map.empty
) {

  /** The operation on `topic`: a job that reads some topics and writes others says which ([[Doing.andReading]]). */
  def topicOp(topic: String): AclOperation = perTopic.getOrElse(topic, topicOp)

  /** The same, reading `topics` (READ) besides. */
  def andReading(topics: List[String]): Doing = copy(topics = (this.topics ++ topics).distinct, perTopic = perTopic ++ topics.map(_ -> READ))
}

object Doing {
  val Unknown: Doing = Doing(UNKNOWN)

  /** A consumer's metadata, offsets and fetches (READ implies the DESCRIBE the offset lookups need). */
  def reading(topics: List[String]): Doing = Doing(READ, topics)

  /** A consumer in `group`: READ on its topics and on the group (joining, committing). */
  def readingInGroup(group: String, topics: List[String]): Doing = Doing(READ, topics, READ, Some(group))

  /** An idempotent producer: WRITE on its topics; a producer id is refused (on the cluster) when it may write no topic. */
  def writing(topics: List[String]): Doing = Doing(WRITE, topics, clusterOp = IDEMPOTENT_WRITE)

  /** A transactional producer that also commits a group's offsets (the handler). */
  def writingTransactionally(transactionalId: String, topics: List[String], group: Option[String]): Doing =
    Doing(WRITE, topics, READ, group, IDEMPOTENT_WRITE, Some(transactionalId))

  /** Admin reads of topics and groups (partition counts, offsets, lag). */
  def describing(topics: List[String]): Doing = Doing(DESCRIBE, topics, DESCRIBE, None, DESCRIBE)

  /** Moving groups' committed offsets: READ on the groups and their topics. */
  def resettingGroups(topics: List[String]): Doing = Doing(READ, topics, READ, None, DESCRIBE)
  def deletingGroups: Doing = Doing(DESCRIBE, Nil, DELETE, None, DESCRIBE)

  /** Topics as code: creating topics (CREATE on them, or on the cluster), adding partitions and configs (ALTER, ALTER_CONFIGS). */
  def creating(topics: List[String]): Doing = Doing(CREATE, topics, clusterOp = CREATE)
  def altering(topics: List[String]): Doing = Doing(ALTER, topics, clusterOp = ALTER)
  def alteringConfigs(topics: List[String]): Doing = Doing(ALTER_CONFIGS, topics, clusterOp = ALTER_CONFIGS)
  def describingConfigs(topics: List[String]): Doing = Doing(DESCRIBE_CONFIGS, topics, clusterOp = DESCRIBE_CONFIGS)
  def deleting(topics: List[String]): Doing = Doing(DELETE, topics, clusterOp = DELETE)

  /** A request on the cluster itself: reading ACLs and SCRAM users (DESCRIBE), changing them (ALTER). */
  def onCluster(op: AclOperation): Doing = Doing(UNKNOWN, clusterOp = op)
}

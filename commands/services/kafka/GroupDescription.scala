package bankops.services.kafka

import org.apache.kafka.common.TopicPartition

/** A member of a consumer group as the coordinator sees it. */
final case class GroupMember(memberId: String, instanceId: Option[String], clientId: String, host: String, assignment: List[TopicPartition])

/** A consumer group's state (Stable, Empty, PreparingRebalance, ...), its assignor and its members. */
final case class GroupDescription(group: String, state: String, protocol: String, members: List[GroupMember]) {
  def active: Boolean = members.nonEmpty

  /** The members as an error message names them: `client id@host (instance)`. */
  def memberList: String =
    members.map(m => s"${m.clientId}@${m.host.stripPrefix("/")}${m.instanceId.fold("")(i => s" (instance $i)")}").mkString(", ")
}

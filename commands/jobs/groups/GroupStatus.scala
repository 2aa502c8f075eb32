package bankops.jobs.groups

import io.circe.Json
import io.circe.syntax._
import org.apache.kafka.common.TopicPartition

import bankops.base.{StepSummary, Table}
import bankops.services.kafka.GroupDescription

/** One partition of a group: committed offset (None: nothing committed yet), end, lag in records and in time
  * (now minus the timestamp of the next record the group will read; 0 when it is caught up).
  */
private[groups] final case class PartitionLag(tp: TopicPartition, committed: Option[Long], end: Long, lagMillis: Option[Long],
                                              member: Option[String]) {
  def lag: Option[Long] = committed.map(c => (end - c) max 0L)
}

/** A group as `groups describe` shows it. */
private[groups] final case class GroupStatus(description: GroupDescription, partitions: List[PartitionLag]) {
  def group: String = description.group
  def lag: Option[Long] = if (partitions.forall(_.lag.isEmpty)) None else Some(partitions.flatMap(_.lag).sum)
  def lagMillis: Option[Long] = partitions.flatMap(_.lagMillis).maxOption

  def json: Json = Json.obj(
    "group" -> group.asJson, "state" -> description.state.asJson, "protocol" -> description.protocol.asJson, "lag" -> lag.asJson,
    "lagMs" -> lagMillis.asJson,
    "partitions" -> partitions.map(p =>
      Json.obj("topic" -> p.tp.topic.asJson, "partition" -> p.tp.partition.asJson, "committed" -> p.committed.asJson,
        "end" -> p.end.asJson, "lag" -> p.lag.asJson, "lagMs" -> p.lagMillis.asJson, "member" -> p.member.asJson)).asJson,
    "members" -> description.members.map(m =>
      Json.obj("memberId" -> m.memberId.asJson, "instanceId" -> m.instanceId.asJson, "clientId" -> m.clientId.asJson,
        "host" -> m.host.stripPrefix("/").asJson, "assignment" -> m.assignment.map(tp => s"${tp.topic}-${tp.partition}").asJson)).asJson)

  def table: String = {
    val head = s"group $group  state ${description.state}  protocol ${if (description.protocol.isEmpty) "-" else description.protocol}  " +
      s"members ${description.members.size}  lag ${lag.fold("-")(_.toString)}${lagMillis.fold("")(ms => s" (${GroupStatus.age(ms)})")}"
    val parts = if (partitions.isEmpty) "(no committed offsets and no assigned partitions)"
    else Table.render(
      List("topic", "partition", "committed", "end", "lag", "lag time", "member"),
      partitions.map(p =>
        List(p.tp.topic, p.tp.partition.toString, p.committed.fold("-")(_.toString), p.end.toString,
          p.lag.fold("-")(_.toString), p.lagMillis.fold("-")(GroupStatus.age), p.member.getOrElse("-"))))
    val members = if (description.members.isEmpty) "(no active members)"
    else Table.render(
      List("member", "instance", "client id", "host", "assignment"),
      description.members.map(m =>
        List(m.memberId, m.instanceId.getOrElse("-"), m.clientId, m.host.stripPrefix("/"),
          GroupStatus.assignment(m.assignment))))
    List(head, parts, members).mkString("\n\n")
  }

  /** For `$GITHUB_STEP_SUMMARY`. */
  def stepSummary: StepSummary =
    StepSummary("groups describe", s"${StepSummary.code(group)} ${description.state}, lag ${lag.fold("-")(_.toString)}", StepSummary.Outcome.Info,
      facts = List("state" -> description.state, "members" -> description.members.size.toString, "lag" -> lag.fold("-")(_.toString),
        "lag time" -> lagMillis.fold("-")(GroupStatus.age)),
      tables = List(StepSummary.Table(List("topic", "partition", "committed", "end", "lag", "lag time"),
          partitions.map(p =>
            List(p.tp.topic, p.tp.partition.toString, p.committed.fold("-")(_.toString), p.end.toString,
              p.lag.fold("-")(_.toString), p.lagMillis.fold("-")(GroupStatus.age))), numeric = Set(1, 2, 3, 4, 5))))
}

private[groups] object GroupStatus {
  /** `12 ms`, `3.4 s`, `5 min 2 s`, `2 h 5 min`. */
  def age(ms: Long): String =
    if (ms < 1000) s"$ms ms"
    else if (ms < 60000) f"${ms / 1000.0}%.1f s"
    else if (ms < 3600000) s"${ms / 60000} min ${ms % 60000 / 1000} s"
    else s"${ms / 3600000} h ${ms % 3600000 / 60000} min"

  /** `commands-0,1,2 balance-4`: partitions grouped by topic. */
  def assignment(tps: List[TopicPartition]): String =
    tps.groupBy(_.topic).toList.sortBy(_._1).map { case (t, ps) => s"$t-${ps.map(_.partition).sorted.mkString(",")}" }.mkString(" ")
}

/** One row of `groups list`. */
private[groups] final case class GroupListing(group: String, state: String, members: Int, protocol: String, lag: Option[Long]) {
  def json: Json =
    Json.obj("group" -> group.asJson, "state" -> state.asJson, "members" -> members.asJson, "protocol" -> protocol.asJson, "lag" -> lag.asJson)
  def cells: List[String] = List(group, state, members.toString, if (protocol.isEmpty) "-" else protocol, lag.fold("-")(_.toString))
}
private[groups] object GroupListing {
  val header: List[String] = List("group", "state", "members", "protocol", "lag")
}

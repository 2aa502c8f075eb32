package bankops.services.kafka

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.admin.{Admin, ListConsumerGroupOffsetsSpec}
import org.apache.kafka.clients.consumer.OffsetAndMetadata
import org.apache.kafka.common.{ConsumerGroupState, TopicPartition}
import org.apache.kafka.common.errors.{GroupIdNotFoundException, GroupNotEmptyException, UnknownMemberIdException}

import scala.jdk.CollectionConverters._
import scala.jdk.OptionConverters._

import bankops.base.{Failure, Failures}

/** Consumer groups through the admin client: what they are, what they have committed compared with the logs' ends,
  * and the few changes an operator makes to them (move committed offsets, delete an empty group).
  */
object ConsumerGroups {

  /** Every group id the cluster knows, sorted. */
  def names(admin: Admin): IO[List[String]] =
    KafkaClients.await(admin.listConsumerGroups().all()).map(_.asScala.map(_.groupId).toList.sorted)

  /** State, assignor and members of each group; exit 2 naming the first group the cluster does not know. */
  def describe(admin: Admin, groups: List[String]): IO[List[GroupDescription]] =
    existing(admin, groups).flatMap { found =>
      groups.distinct.find(g => !found.exists(_.group == g))
        .fold(IO.pure(found))(g => IO.raiseError(Failure.BadInput(s"consumer group $g does not exist")))
    }

  /** The groups among `groups` that exist: a listed group may be gone by the time it is described. */
  def existing(admin: Admin, groups: List[String]): IO[List[GroupDescription]] =
    if (groups.isEmpty) IO.pure(Nil)
    else {
      val described = admin.describeConsumerGroups(groups.distinct.asJava).describedGroups().asScala
      groups.distinct.traverse { g =>
        KafkaClients.await(described(g)).map(Option(_)).adaptError(Denied.tag(Doing.describing(Nil)))
          .recover { case e if Failures.causedBy[GroupIdNotFoundException](e) => None }
          // The classic protocol answers Dead, with no error, for a group it does not know.
          .map(_.filter(_.state != ConsumerGroupState.DEAD).map { d =>
            GroupDescription(g, d.state.toString, Option(d.partitionAssignor).getOrElse(""),
              d.members.asScala.toList.map { m =>
                GroupMember(m.consumerId, m.groupInstanceId.toScala, m.clientId, m.host,
                  m.assignment.topicPartitions.asScala.toList.sortBy(tp => (tp.topic, tp.partition)))
              }.sortBy(_.clientId))
          })
      }.map(_.flatten)
    }

  private def unknown(group: String): PartialFunction[Throwable, Throwable] = {
    case e if Failures.causedBy[GroupIdNotFoundException](e) => Failure.BadInput(s"consumer group $group does not exist")
  }

  /** The offsets a group has committed, per partition (only partitions it committed on). */
  def committed(admin: Admin, group: String): IO[Map[TopicPartition, Long]] =
    KafkaClients.await(admin.listConsumerGroupOffsets(Map(group -> new ListConsumerGroupOffsetsSpec()).asJava).partitionsToOffsetAndMetadata(group))
      .map(_.asScala.collect { case (tp, o) if o != null => tp -> o.offset }.toMap).adaptError(Denied.tag(Doing.describing(Nil)))

  /** Committed offset and end offset per partition the group has committed on (read_committed ends: the last stable offset). */
  def positions(admin: Admin, group: String): IO[Map[TopicPartition, (Long, Long)]] =
    committed(admin, group).flatMap(positionsOf(admin, _))

  /** The `committed` offsets beside their partitions' ends, leaving out the partitions of a topic deleted since: listing
    * every group's lag failed whole when one of them had committed on a topic being deleted.
    */
  def positionsOf(admin: Admin, committed: Map[TopicPartition, Long]): IO[Map[TopicPartition, (Long, Long)]] =
    EndOffsets.existing(admin, committed.keySet).flatMap { live =>
      EndOffsets.ends(admin, live).map(ends => live.map(tp => tp -> (committed(tp), ends(tp))).toMap)
    }

  /** Records the group has yet to read, summed over its partitions; None when it has committed nothing. */
  def lag(admin: Admin, group: String): IO[Option[Long]] =
    positions(admin, group).map(p => if (p.isEmpty) None else Some(p.values.map { case (c, end) => (end - c) max 0L }.sum))

  /** Commits `offsets` for an inactive group in one request, which the coordinator applies entirely or not at all;
    * exit 2 naming the group when it has members (the coordinator refuses then too).
    */
  def alter(admin: Admin, group: String, offsets: Map[TopicPartition, Long]): IO[Unit] =
    KafkaClients.await(admin.alterConsumerGroupOffsets(group, offsets.map { case (tp, o) => tp -> new OffsetAndMetadata(o) }.asJava).all())
      .void.adaptError(notEmpty(group)).adaptError(Denied.tag(Doing.resettingGroups(offsets.keys.map(_.topic).toList.distinct)))

  /** Deletes an empty group and its committed offsets; exit 2 when it has members. */
  def delete(admin: Admin, group: String): IO[Unit] =
    KafkaClients.await(admin.deleteConsumerGroups(List(group).asJava).all()).void.adaptError(notEmpty(group).orElse(unknown(group)))
      .adaptError(Denied.tag(Doing.deletingGroups))

  private def notEmpty(group: String): PartialFunction[Throwable, Throwable] = {
    case e if Failures.chain(e).exists(c => c.isInstanceOf[GroupNotEmptyException] || c.isInstanceOf[UnknownMemberIdException]) =>
      Failure.BadInput(s"consumer group $group has active members; the broker refused the change (${Failures.chain(e).last.getMessage})")
  }
}

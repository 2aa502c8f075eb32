package bankops.services.kafka

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.admin.{Admin, ListOffsetsOptions, OffsetSpec}
import org.apache.kafka.common.{IsolationLevel, TopicPartition}
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException

import scala.jdk.CollectionConverters._

import bankops.base.{Failure, Failures}

/** Where partitions begin and end for read_committed readers (ends are the last stable offsets), and which offset a
  * time falls on: the bounds within which a read starts or a group's committed offsets may move.
  */
object EndOffsets {
  def of(admin: Admin, topic: String): IO[Map[TopicPartition, Long]] =
    partitions(admin, topic).flatMap(ends(admin, _))

  /** The partitions of a topic; exit 2 naming it when it does not exist. */
  def partitions(admin: Admin, topic: String): IO[List[TopicPartition]] =
    KafkaClients.await(admin.describeTopics(List(topic).asJava).allTopicNames())
      .map(_.get(topic).partitions.asScala.map(p => new TopicPartition(topic, p.partition)).toList.sortBy(_.partition))
      .adaptError(Denied.tag(Doing.describing(List(topic))))
      .adaptError {
        case e if Failures.chain(e).exists(_.isInstanceOf[UnknownTopicOrPartitionException]) =>
          Failure.BadInput(s"topic $topic does not exist")
      }

  /** Those of `partitions` whose topic exists. A group's committed offsets can name a topic deleted since they were
    * read (the coordinator drops them a moment after), and the ends of a partition that is gone are an error, not a 0.
    */
  def existing(admin: Admin, partitions: Iterable[TopicPartition]): IO[List[TopicPartition]] = {
    val topics = partitions.map(_.topic).toList.distinct
    if (topics.isEmpty) IO.pure(Nil)
    else {
      val described = admin.describeTopics(topics.asJava).topicNameValues().asScala
      topics.traverseFilter(t =>
        KafkaClients.await(described(t)).as(Option(t)).recover {
          case e if Failures.chain(e).exists(_.isInstanceOf[UnknownTopicOrPartitionException]) => None
        }).adaptError(Denied.tag(Doing.describing(topics))).map(known => partitions.filter(tp => known.contains(tp.topic)).toList)
    }
  }

  def ends(admin: Admin, partitions: Iterable[TopicPartition]): IO[Map[TopicPartition, Long]] =
    list(admin, partitions, OffsetSpec.latest()).map(_.map { case (tp, o) => tp -> o.getOrElse(0L) })

  /** The high watermarks: past the last stable offsets ([[ends]]) by the records of open transactions. */
  def highWatermarks(admin: Admin, partitions: Iterable[TopicPartition]): IO[Map[TopicPartition, Long]] =
    list(admin, partitions, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED).map(_.map { case (tp, o) => tp -> o.getOrElse(0L) })

  /** The log start offsets: the first offsets retention has kept. */
  def beginnings(admin: Admin, partitions: Iterable[TopicPartition]): IO[Map[TopicPartition, Long]] =
    list(admin, partitions, OffsetSpec.earliest()).map(_.map { case (tp, o) => tp -> o.getOrElse(0L) })

  /** The offset of the first record at or after `millis` per partition; None where no record is that late. */
  def forTime(admin: Admin, partitions: Iterable[TopicPartition], millis: Long): IO[Map[TopicPartition, Option[Long]]] =
    list(admin, partitions, OffsetSpec.forTimestamp(millis))

  private def list(admin: Admin, partitions: Iterable[TopicPartition], spec: OffsetSpec,
                   isolation: IsolationLevel = IsolationLevel.READ_COMMITTED): IO[Map[TopicPartition, Option[Long]]] =
    if (partitions.isEmpty) IO.pure(Map.empty)
    else KafkaClients.await(admin.listOffsets(partitions.map(_ -> spec).toMap.asJava, new ListOffsetsOptions(isolation)).all())
      .map(_.asScala.map { case (tp, r) => tp -> Some(r.offset).filter(_ >= 0) }.toMap)
      .adaptError(Denied.tag(Doing.describing(partitions.map(_.topic).toList.distinct)))
}

package bankops.services.kafka

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.admin.{
  Admin, ConfigEntry, DescribeConfigsOptions, ListOffsetsOptions, ListTopicsOptions, OffsetSpec, TopicDescription
}
import org.apache.kafka.common.{IsolationLevel, Node, TopicPartition}
import org.apache.kafka.common.config.ConfigResource
import org.apache.kafka.common.errors.ClusterAuthorizationException

import java.time.Instant
import scala.jdk.CollectionConverters._

import bankops.base.Failure
import bankops.services.kafka.KafkaClients.await

/** Reads topics as the cluster has them, through one admin client: leadership, replication, offsets, sizes on disk,
  * record times and configs. Read-only.
  */
object ClusterTopics {

  /** Every topic by name, with whether it is internal: Kafka's own (`__consumer_offsets`) and, by bankops' rule,
    * every name starting with '_' (registries keep their schemas there).
    */
  def names(admin: Admin): IO[Map[String, Boolean]] =
    await(admin.listTopics(new ListTopicsOptions().listInternal(true)).listings())
      .map(_.asScala.map(l => l.name -> (l.isInternal || l.name.startsWith("_"))).toMap)

  /** Every topic (the internal ones only with `internal`), sorted by name. */
  def overview(admin: Admin, internal: Boolean): IO[List[TopicOverview]] =
    names(admin).flatMap { all =>
      val shown = all.filter { case (_, isInternal) => internal || !isInternal }.keys.toList.sorted
      described(admin, shown).map(d =>
        shown.map { n =>
          val parts = d(n).partitions.asScala.toList
          val rows = parts.map(partition(_, Map.empty))
          TopicOverview(n, all(n), parts.size, rows.map(_.replicas.size).maxOption.getOrElse(0), rows.count(_.underReplicated),
            rows.count(_.offline))
        })
    }

  /** The topics named, in that order; exit 2 naming those that do not exist, before anything else is asked. */
  def describe(admin: Admin, topics: List[String]): IO[DescribedTopics] =
    for {
      all <- names(admin)
      missing = topics.filterNot(all.contains)
      // The list holds only the topics this identity may describe: one it may not is a refusal, not an absence.
      _ <- IO.whenA(missing.nonEmpty)(Denied.visible(admin, missing) >>
        IO.raiseError(Failure.BadInput(missing.map(t => s"topic $t does not exist").mkString("; "))))
      d <- described(admin, topics)
      nodes <- await(admin.describeCluster().nodes()).map(_.asScala.toList.map(_.id))
      parts = topics.flatMap(t => d(t).partitions.asScala.toList.map(p => new TopicPartition(t, p.partition) -> p))
      led = parts.collect { case (tp, p) if leaderOf(p).isDefined => tp }
      offsets <- (
        listOffsets(admin, led, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED),
        listOffsets(admin, led, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED),
        listOffsets(admin, led, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED),
        // The broker's time index: the first record at or after time 0 is the first record; and the largest timestamp.
        listOffsets(admin, led, OffsetSpec.forTimestamp(0L), IsolationLevel.READ_UNCOMMITTED),
        listOffsets(admin, led, OffsetSpec.maxTimestamp(), IsolationLevel.READ_UNCOMMITTED)
      ).parTupled
      sizes <- logDirSizes(admin, nodes)
      configs <- await(admin.describeConfigs(topics.map(new ConfigResource(ConfigResource.Type.TOPIC, _)).asJava,
          new DescribeConfigsOptions().includeSynonyms(true)).all()).map(_.asScala.map { case (r, c) =>
        r.name -> c.entries.asScala.toList.map(setting).sortBy(_.name)
      }.toMap)
    } yield {
      val (start, stable, end, first, last) = offsets
      val failedOffsets = List(start, stable, end, first, last).flatMap(_.collect { case (tp, Left(e)) => tp -> e }).toMap
      def offset(m: Answers, tp: TopicPartition) = m.get(tp).flatMap(_.toOption).map(_._1)
      def time(m: Answers, tp: TopicPartition) = m.get(tp).flatMap(_.toOption).collect { case (o, t) if o >= 0 && t >= 0 => Instant.ofEpochMilli(t) }
      val details = topics.map { t =>
        val rows = d(t).partitions.asScala.toList.map { p =>
          val tp = new TopicPartition(t, p.partition)
          partition(p, sizes._1.getOrElse(tp, Map.empty)).copy(logStart = offset(start, tp), lastStable = offset(stable, tp), end = offset(end, tp),
            firstRecord = time(first, tp), lastRecord = time(last, tp))
        }
        TopicDetails(t, all(t), d(t).topicId.toString, rows, configs.getOrElse(t, Nil))
      }
      val offline = parts.collect { case (tp, p) if leaderOf(p).isEmpty => tp.toString }
      val warnings = sizes._2.toList ++
        offline.headOption.map(_ => s"no leader, so no offsets or times, for ${offline.mkString(", ")}").toList ++
        failedOffsets.headOption.map { case (tp, e) =>
          s"offsets of ${failedOffsets.size} partitions could not be read (${tp}: ${Option(e.getMessage).getOrElse(e.getClass.getSimpleName)})"
        }.toList
      DescribedTopics(nodes.size, details, warnings)
    }

  private def described(admin: Admin, topics: List[String]): IO[Map[String, TopicDescription]] =
    if (topics.isEmpty) IO.pure(Map.empty) else await(admin.describeTopics(topics.asJava).allTopicNames()).map(_.asScala.toMap)

  private def leaderOf(p: org.apache.kafka.common.TopicPartitionInfo): Option[Int] = Option(p.leader).filterNot(_.isEmpty).map(_.id)

  private def ids(nodes: java.util.List[Node]): List[Int] = Option(nodes).fold(List.empty[Int])(_.asScala.toList.map(_.id))

  private def partition(p: org.apache.kafka.common.TopicPartitionInfo, sizes: Map[Int, Long]): PartitionDetails =
    PartitionDetails(p.partition, leaderOf(p), ids(p.replicas), ids(p.isr), None, None, None, sizes, None, None)

  /** Per partition, an offset and its record's timestamp (-1 when there is none), or why the broker did not answer. */
  private type Answers = Map[TopicPartition, Either[Throwable, (Long, Long)]]

  /** One request per leader for all partitions; a partition's failure is its own. */
  private def listOffsets(admin: Admin, tps: List[TopicPartition], spec: OffsetSpec, isolation: IsolationLevel): IO[Answers] =
    if (tps.isEmpty) IO.pure(Map.empty)
    else IO.defer {
      val result = admin.listOffsets(tps.map(_ -> spec).toMap.asJava, new ListOffsetsOptions(isolation))
      tps.traverse(tp => await(result.partitionResult(tp)).attempt.map(r => tp -> r.map(i => (i.offset, i.timestamp)))).map(_.toMap)
    }

  /** Each replica's size by partition and broker (a replica being moved between directories counts once, not its
    * copy); without permission to describe the brokers, no sizes and a warning.
    */
  private def logDirSizes(admin: Admin, brokers: List[Int]): IO[(Map[TopicPartition, Map[Int, Long]], Option[String])] =
    await(admin.describeLogDirs(brokers.map(Integer.valueOf).asJava).allDescriptions()).map { byBroker =>
      val replicas = for {
        (broker, dirs) <- byBroker.asScala.toList
        (_, dir) <- dirs.asScala.toList if dir.error == null
        (tp, info) <- dir.replicaInfos.asScala.toList if !info.isFuture
      } yield (tp, broker.intValue, info.size)
      (replicas.groupBy(_._1).map { case (tp, rs) => tp -> rs.map { case (_, b, s) => b -> s }.toMap }, Option.empty[String])
    }.recover {
      case e if Option(e.getCause).getOrElse(e).isInstanceOf[ClusterAuthorizationException] || e.isInstanceOf[ClusterAuthorizationException] =>
        (Map.empty, Some("sizes unknown: not allowed to describe the brokers' log directories"))
    }

  private def setting(e: ConfigEntry): ConfigSetting = {
    val source = ConfigSetting.sourceName(e.source)
    val overridden = e.synonyms.asScala.toList.filterNot(s => s.name == e.name && s.source == e.source).map(s =>
      ConfigSetting(s.name, if (e.isSensitive) None else Option(s.value), ConfigSetting.sourceName(s.source), e.isSensitive))
    ConfigSetting(e.name, if (e.isSensitive) None else Option(e.value), source, e.isSensitive, overridden)
  }
}

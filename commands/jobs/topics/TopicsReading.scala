package bankops.jobs.topics

import cats.data.NonEmptyList
import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Exit, Job, Rendered, Shell, Shown}
import bankops.flags.TopicFlags
import bankops.services.config.{ClientIdentity, Connections, KafkaSettings}
import bankops.services.contracts.{Topology, TopologyChoice}
import bankops.services.kafka.{ClusterTopics, KafkaClients}

/** `bankops topics list|describe`: what the cluster has, read-only; for debugging and for monitoring jobs
  * (`--fail-under-replicated`).
  */
private[topics] object TopicsReading {

  /** The described topics, in the order asked, and what could not be read. */
  final case class Description(brokers: Int, topics: List[TopicReport], warnings: List[String]) {
    def underReplicated: List[String] = topics.flatMap(r => r.details.underReplicated.map(p => s"${r.details.name}-$p"))
  }

  /** Typed entry point: the topics named, each with its differences from `topology`; exit 2 naming an unknown one. */
  def describe(kafka: KafkaSettings, topology: Topology, topics: List[String], timeout: FiniteDuration): IO[Description] =
    KafkaClients.withAdmin(kafka, timeout)(ClusterTopics.describe(_, topics)).map(d =>
      Description(d.brokers, d.topics.map(t => TopicReport(t, TopicDrift.of(topology, d.brokers, t))), d.warnings))

  /** Typed entry point: every topic (internal ones with `internal`) and whether the topology declares it. */
  def list(kafka: KafkaSettings, topology: Topology, internal: Boolean, timeout: FiniteDuration): IO[List[TopicLine]] =
    KafkaClients.withAdmin(kafka, timeout)(ClusterTopics.overview(_, internal)).map(_.map(o => TopicLine(o, topology.names(o.name))))

  private val failUnderReplicated = Opts.flag("fail-under-replicated",
    "Exit 1 when a partition has fewer in-sync replicas than replicas (or no leader): for monitoring jobs.").orFalse

  /** Under-replicated partitions (`where`: which, or which topics with how many) are a warning, or exit 1 when asked. */
  private[topics] def verdict(count: Int, where: List[String], fail: Boolean): (Rendered, ExitCode) =
    if (count == 0) (Rendered.empty, Exit.Ok)
    else {
      val line = s"$count under-replicated partition${if (count == 1) "" else "s"}: ${where.mkString(", ")}"
      if (fail) (Rendered.note(s"topics: $line"), Exit.Difference) else (Rendered.warning(line), Exit.Ok)
    }

  final case class ListOptions(common: TopicsFlags, internal: Boolean, failUnderReplicated: Boolean)

  /** What `list` found: the cluster's topics, the declared ones it lacks, and who asked (the cluster lists only what
    * that identity may describe).
    */
  final case class Listing(lines: List[TopicLine], missing: List[String], identity: String)

  private def listing(o: ListOptions, shell: Shell): IO[Listing] =
    for {
      topology <- TopologyChoice.load(o.common.topology, shell)
      settings <- Connections.load(o.common.flags, shell)
      lines <- list(settings.kafka, topology, o.internal, o.common.timeout)
    } yield Listing(lines, topology.topics.map(_.name).filterNot(n => lines.exists(_.overview.name == n)), ClientIdentity.describe(settings.kafka))

  private def renderListing(o: ListOptions, l: Listing): Shown = {
    val under = l.lines.filter(_.overview.underReplicated > 0)
    val (said, code) =
      verdict(under.map(_.overview.underReplicated).sum, under.map(t => s"${t.overview.name} (${t.overview.underReplicated})"), o.failUnderReplicated)
    Shown(o.common.output,
      Rendered.result(l.lines.map(TopicViews.lineJson), TopicViews.listTable(l.lines)) ++
        Rendered.warning(s"declared in the topology but not on the cluster: ${l.missing.mkString(", ")} (topics plan shows what apply would " +
          s"create; a topic ${l.identity} may not DESCRIBE is not listed either)").when(l.missing.nonEmpty) ++ said,
      code)
  }

  val listCmd = Job.Sub("list",
    "Every topic: partitions, replication factor, whether the topology declares it, under-replicated and offline partitions.",
    (TopicsFlags.common, Opts.flag("internal", "Also list internal topics (Kafka's own, and names starting with '_').").orFalse,
      failUnderReplicated).mapN(ListOptions.apply))(listing, renderListing)

  final case class DescribeOptions(common: TopicsFlags, topics: NonEmptyList[String], failUnderReplicated: Boolean)

  private def described(o: DescribeOptions, shell: Shell): IO[Description] =
    for {
      topology <- TopologyChoice.load(o.common.topology, shell)
      settings <- Connections.load(o.common.flags, shell)
      d <- describe(settings.kafka, topology, o.topics.toList.distinct, o.common.timeout)
    } yield d

  private def renderDescription(o: DescribeOptions, d: Description): Shown = {
    val (said, code) = verdict(d.underReplicated.size, d.underReplicated, o.failUnderReplicated)
    Shown(o.common.output,
      Rendered.result(d.topics.map(TopicViews.reportJson), d.topics.map(TopicViews.describeTable).mkString("\n")) ++
        Rendered.all(d.warnings.map(Rendered.warning)) ++ said,
      code)
  }

  val describeCmd = Job.Sub("describe",
    "Per partition leader, replicas, ISR, offsets, size on disk, first and last record times; configs with their source; " +
      "differences from the topology.",
    (TopicsFlags.common, TopicFlags.arguments("TOPIC"), failUnderReplicated).mapN(DescribeOptions.apply))(described, renderDescription)
}

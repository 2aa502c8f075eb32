package bankops.jobs.topics

import cats.data.NonEmptyList
import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Exit, OutputFormat, Shell}
import bankops.services.config.{ClientIdentity, Connections, KafkaSettings}
import bankops.services.contracts.{Topology, TopologyOpts}
import bankops.services.kafka.{ClusterTopics, KafkaClients, TopicName}

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
  private[topics] def verdict(count: Int, where: List[String], fail: Boolean, shell: Shell): IO[ExitCode] =
    if (count == 0) IO.pure(Exit.Ok)
    else {
      val line = s"$count under-replicated partition${if (count == 1) "" else "s"}: ${where.mkString(", ")}"
      if (fail) shell.info(s"topics: $line").as(Exit.Difference) else shell.warn(line).as(Exit.Ok)
    }

  val listCmd: Opts[Shell => IO[ExitCode]] = Opts.subcommand("list",
    "Every topic: partitions, replication factor, whether the topology declares it, under-replicated and offline partitions.")(
    (TopicsFlags.common, Opts.flag("internal", "Also list internal topics (Kafka's own, and names starting with '_').").orFalse,
      failUnderReplicated).mapN { (c, internal, fail) => (shell: Shell) =>
      for {
        topology <- TopologyOpts.load(c.topology, shell)
        settings <- Connections.load(c.flags, shell)
        lines <- list(settings.kafka, topology, internal, c.timeout)
        format = OutputFormat.resolve(c.output, shell)
        _ <- OutputFormat.emit(format, shell)(lines.map(TopicViews.lineJson), TopicViews.listTable(lines))
        missing = topology.topics.map(_.name).filterNot(n => lines.exists(_.overview.name == n))
        // The cluster lists only the topics this identity may describe.
        _ <- shell.warn(s"declared in the topology but not on the cluster: ${missing.mkString(", ")} (topics plan shows what apply would create; " +
          s"a topic ${ClientIdentity.describe(settings.kafka)} may not DESCRIBE is not listed either)")
          .whenA(missing.nonEmpty)
        under = lines.filter(_.overview.underReplicated > 0)
        code <- verdict(under.map(_.overview.underReplicated).sum, under.map(l => s"${l.overview.name} (${l.overview.underReplicated})"), fail, shell)
      } yield code
    })

  val describeCmd: Opts[Shell => IO[ExitCode]] = Opts.subcommand("describe",
    "Per partition leader, replicas, ISR, offsets, size on disk, first and last record times; configs with their source; " +
      "differences from the topology.")(
    (TopicsFlags.common, TopicName.arguments("TOPIC"), failUnderReplicated).mapN {
      (c, topics: NonEmptyList[String], fail) => (shell: Shell) =>
        for {
          topology <- TopologyOpts.load(c.topology, shell)
          settings <- Connections.load(c.flags, shell)
          d <- describe(settings.kafka, topology, topics.toList.distinct, c.timeout)
          format = OutputFormat.resolve(c.output, shell)
          _ <- OutputFormat.emit(format, shell)(d.topics.map(TopicViews.reportJson), d.topics.map(TopicViews.describeTable).mkString("\n"))
          _ <- d.warnings.traverse_(shell.warn)
          code <- verdict(d.underReplicated.size, d.underReplicated, fail, shell)
        } yield code
    })
}

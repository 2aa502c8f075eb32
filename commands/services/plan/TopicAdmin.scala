package bankops.services.plan

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.admin.{
  Admin, AlterConfigOp, ConfigEntry, CreatePartitionsOptions, CreateTopicsOptions, AlterConfigsOptions, ListTopicsOptions, NewPartitions, NewTopic
}
import org.apache.kafka.common.config.ConfigResource

import scala.jdk.CollectionConverters._

import bankops.services.kafka.{Denied, Doing}
import bankops.services.kafka.KafkaClients.await

/** The result of one change: done, or the broker's reason for refusing it. */
final case class Outcome(change: TopicChange, error: Option[Throwable]) {
  def ok: Boolean = error.isEmpty

  /** The line naming a change the broker refused. */
  def refusal: String = s"refused: topic ${change.topic}: ${change.action}: ${error.map(TopicSync.reason).getOrElse("")}"
}

/** The effectful edge of `topics`: reads the cluster and carries out changes, with a result per topic. */
final class TopicAdmin(admin: Admin, identity: => String = "the client's identity") {

  /** Brokers, every non-internal topic, and for the `declared` topics that exist: partitions, replication and effective configs. */
  def cluster(declared: Set[String]): IO[ClusterState] =
    for {
      brokers <- await(admin.describeCluster().nodes()).map(_.size).adaptError(Denied.tag(Doing.describing(Nil)))
      names <- await(admin.listTopics(new ListTopicsOptions().listInternal(false)).names()).map(_.asScala.toSet)
      present = (declared intersect names).toList.sorted
      // A declared topic this identity may not describe is left out of the listing: a refusal, never a topic to create.
      _ <- Denied.visible(admin, (declared -- names).toList.sorted)
      descriptions <- if (present.isEmpty) IO.pure(Map.empty[String, org.apache.kafka.clients.admin.TopicDescription])
      else await(admin.describeTopics(present.asJava).allTopicNames()).map(_.asScala.toMap).adaptError(Denied.tag(Doing.describing(present)))
      configs <- if (present.isEmpty) IO.pure(Map.empty[String, Map[String, String]])
      else await(admin.describeConfigs(present.map(n => new ConfigResource(ConfigResource.Type.TOPIC, n)).asJava).all()).map(
        _.asScala.map { case (r, c) => r.name -> c.entries.asScala.collect { case e if e.value != null => e.name -> e.value }.toMap }.toMap)
        .adaptError(Denied.tag(Doing.describingConfigs(present)))
    } yield {
      val described = descriptions.map { case (n, d) =>
        val parts = d.partitions.asScala
        n -> ClusterTopic(n, parts.size, parts.headOption.map(_.replicas.size).getOrElse(0), configs.getOrElse(n, Map.empty))
      }
      // Unlisted topics matter only by name (for --delete-unlisted).
      ClusterState(brokers, (names -- present).map(n => n -> ClusterTopic(n, 0, 0, Map.empty)).toMap ++ described)
    }

  /** Sends every change of the plan, in order creates, partitions, configs, deletes; with `validateOnly`
    * the broker checks them all and changes nothing. Never fails as a whole: each change has its outcome.
    */
  def execute(plan: TopicPlan, validateOnly: Boolean): IO[List[Outcome]] = {
    val creates = plan.changes.collect { case c: TopicChange.Create => c }
    val adds = plan.changes.collect { case c: TopicChange.AddPartitions => c }
    val sets = plan.changes.collect { case c: TopicChange.SetConfig => c }
    val deletes = plan.changes.collect { case c: TopicChange.Delete => c }

    // `doing`: what a refusal by the authorizer is reported as.
    def each[C <: TopicChange](cs: List[C], doing: String => Doing)(futures: List[C] => Map[String, IO[Unit]]): IO[List[Outcome]] =
      if (cs.isEmpty) IO.pure(Nil)
      else IO.defer {
        val fs = futures(cs)
        // A refusal is the line naming the operation and the identity, as a job's (see Denied).
        cs.traverse(c =>
          fs(c.topic).adaptError(Function.unlift((e: Throwable) => Denied.failure(e, doing(c.topic), identity))).attempt.map(r =>
            Outcome(c, r.left.toOption)))
      }

    val created = each(creates, t => Doing.creating(List(t))) { cs =>
      val topics = cs.map(c => new NewTopic(c.topic, c.partitions, c.replicationFactor.toShort).configs(c.config.asJava))
      admin.createTopics(topics.asJava, new CreateTopicsOptions().validateOnly(validateOnly)).values.asScala.toMap.map { case (t, f) =>
        t -> await(f).void
      }
    }
    val added = each(adds, t => Doing.altering(List(t))) { cs =>
      admin.createPartitions(cs.map(c => c.topic -> NewPartitions.increaseTo(c.to)).toMap.asJava,
        new CreatePartitionsOptions().validateOnly(validateOnly)).values.asScala.toMap.map { case (t, f) => t -> await(f).void }
    }
    val configured = each(sets, t => Doing.alteringConfigs(List(t))) { cs =>
      val ops = cs.groupBy(_.topic).map { case (t, group) =>
        new ConfigResource(ConfigResource.Type.TOPIC, t) ->
          (group.map(c => new AlterConfigOp(new ConfigEntry(c.key, c.wanted), AlterConfigOp.OpType.SET)).asJavaCollection: java.util.Collection[
            AlterConfigOp])
      }
      admin.incrementalAlterConfigs(ops.asJava, new AlterConfigsOptions().validateOnly(validateOnly)).values.asScala.toMap.map { case (r, f) =>
        r.name -> await(f).void
      }
    }
    // Deletion has no validate-only mode; it is only ever sent for real.
    val deleted = if (validateOnly) IO.pure(deletes.map(Outcome(_, None)))
    else each(deletes, t => Doing.deleting(List(t))) { cs =>
      admin.deleteTopics(cs.map(_.topic).asJava).topicNameValues.asScala.toMap.map { case (t, f) => t -> await(f).void }
    }
    (created, added, configured, deleted).mapN(_ ++ _ ++ _ ++ _)
  }
}

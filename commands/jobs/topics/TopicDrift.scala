package bankops.jobs.topics

import io.circe.{Encoder, Json}

import bankops.services.contracts.Topology
import bankops.services.kafka.TopicDetails
import bankops.services.plan.{ClusterState, ClusterTopic, TopicPlanner}

/** A way a topic differs from what the topology declares: `kind` is the action `topics apply` would take
  * (`add-partitions`, `set-config`) or the warning plan gives where it will not act (`replication-differs`, ...).
  */
final case class Difference(kind: String, detail: String)

object Difference {
  implicit val encoder: Encoder[Difference] =
    Encoder.instance(d => Json.obj("kind" -> Json.fromString(d.kind), "detail" -> Json.fromString(d.detail)))
}

/** Pure: a described topic against the topology, by the same planner `topics plan` uses, so the two never disagree. */
private[topics] object TopicDrift {
  /** None when the topology does not declare the topic. */
  def of(topology: Topology, brokers: Int, t: TopicDetails): Option[List[Difference]] =
    topology.topic(t.name).map { spec =>
      val cluster = ClusterState(brokers, Map(t.name -> ClusterTopic(t.name, t.partitions.size, t.replicationFactor, t.effectiveConfig)))
      val plan = TopicPlanner.plan(topology.copy(topics = List(spec)), cluster)
      plan.changes.map(c => Difference(c.action, c.detail)) ++ plan.warnings.map(w => Difference(w.kind, w.message))
    }
}

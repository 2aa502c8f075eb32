package bankops.services.plan

import io.circe.{Encoder, Json}

/** A change `topics apply` makes. */
sealed trait TopicChange { def topic: String; def action: String; def detail: String }
object TopicChange {
  final case class Create(topic: String, partitions: Int, replicationFactor: Int, config: Map[String, String]) extends TopicChange {
    val action = "create"
    def detail: String = (s"$partitions partitions, replication $replicationFactor" :: config.toList.sorted.map { case (k, v) => s"$k=$v" }).mkString(
      ", ")
  }
  final case class AddPartitions(topic: String, from: Int, to: Int) extends TopicChange {
    val action = "add-partitions"
    def detail = s"$from -> $to partitions"
  }
  final case class SetConfig(topic: String, key: String, current: Option[String], wanted: String) extends TopicChange {
    val action = "set-config"
    def detail = s"$key: ${current.getOrElse("(unset)")} -> $wanted"
  }
  final case class Delete(topic: String) extends TopicChange {
    val action = "delete"
    def detail = "not in the topology (--delete-unlisted)"
  }

  implicit val encoder: Encoder[TopicChange] = Encoder.instance { c =>
    val common = List("action" -> Json.fromString(c.action), "topic" -> Json.fromString(c.topic))
    Json.fromFields(common ++
      (c match {
        case Create(_, p, rf, cfg) => List("partitions" -> Json.fromInt(p), "replicationFactor" -> Json.fromInt(rf),
            "config" -> Json.fromFields(cfg.toList.sorted.map { case (k, v) => k -> Json.fromString(v) }))
        case AddPartitions(_, f, t) => List("from" -> Json.fromInt(f), "to" -> Json.fromInt(t))
        case SetConfig(_, k, cur, w) =>
          List("key" -> Json.fromString(k), "current" -> cur.fold(Json.Null)(Json.fromString), "wanted" -> Json.fromString(w))
        case Delete(_) => Nil
      }))
  }
}

/** Drift the plan reports but will not fix: Kafka cannot shrink partitions or change replication in place. */
sealed trait TopicWarning { def topic: String; def kind: String; def message: String }
object TopicWarning {
  final case class FewerPartitionsDeclared(topic: String, declared: Int, actual: Int) extends TopicWarning {
    val kind = "fewer-partitions-declared"
    def message = s"topic $topic: declares $declared partitions but has $actual; Kafka cannot remove partitions, left as is"
  }
  final case class ReplicationDiffers(topic: String, wanted: Int, actual: Int) extends TopicWarning {
    val kind = "replication-differs"
    def message = s"topic $topic: replication factor is $actual, the topology wants $wanted; reassign partitions to change it"
  }
  /** Never capped in silence: the broker refuses the create, and the plan says what would make it fit. */
  final case class TooFewBrokers(topic: String, declared: Int, brokers: Int) extends TopicWarning {
    val kind = "too-few-brokers"
    def message = s"topic $topic: replication factor $declared needs $declared brokers, the cluster has $brokers; " +
      "declare an environment for this cluster in the topology and choose it with --environment"
  }

  implicit val encoder: Encoder[TopicWarning] = Encoder.instance(w =>
    Json.obj("kind" -> Json.fromString(w.kind), "topic" -> Json.fromString(w.topic), "message" -> Json.fromString(w.message)))
}

/** `environment`: what the chosen environment changed of the declared topics, one line each. */
final case class TopicPlan(changes: List[TopicChange], warnings: List[TopicWarning], environment: List[String] = Nil) {
  def isEmpty: Boolean = changes.isEmpty
  def topics: List[String] = changes.map(_.topic).distinct
}

object TopicPlan {
  /** `environment` only when one was chosen: a plan without one reads as it always did. */
  implicit val encoder: Encoder[TopicPlan] = Encoder.instance(p =>
    Json.fromFields(List("changes" -> Json.fromValues(p.changes.map(Encoder[TopicChange].apply)),
      "warnings" -> Json.fromValues(p.warnings.map(Encoder[TopicWarning].apply))) ++
      (if (p.environment.isEmpty) Nil else List("environment" -> Json.fromValues(p.environment.map(Json.fromString))))))
}

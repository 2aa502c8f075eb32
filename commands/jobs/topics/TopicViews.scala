package bankops.jobs.topics

import io.circe.{Encoder, Json}
import io.circe.syntax._

import bankops.base.Table
import bankops.services.kafka.{ConfigSetting, PartitionDetails, TopicDetails, TopicOverview}

/** A described topic with what the topology says of it: `differences` is None when the topology does not declare it. */
private[topics] final case class TopicReport(details: TopicDetails, differences: Option[List[Difference]]) {
  def declared: Boolean = differences.isDefined
}

/** A listed topic and whether the topology declares it. */
private[topics] final case class TopicLine(overview: TopicOverview, declared: Boolean)

/** `topics list` and `topics describe` as JSON lines (one object per topic) and as tables. */
private[topics] object TopicViews {
  private def opt[A: Encoder](a: Option[A]): Json = a.fold(Json.Null)(_.asJson)

  implicit val partitionEncoder: Encoder[PartitionDetails] = Encoder.instance(p =>
    Json.obj(
      "partition" -> p.partition.asJson, "leader" -> opt(p.leader), "replicas" -> p.replicas.asJson, "isr" -> p.isr.asJson,
      "logStart" -> opt(p.logStart), "lastStable" -> opt(p.lastStable), "end" -> opt(p.end), "size" -> opt(p.size),
      "replicaSizes" -> Json.fromFields(p.replicaSizes.toList.sorted.map { case (b, s) => b.toString -> s.asJson }),
      "firstRecord" -> opt(p.firstRecord.map(_.toString)), "lastRecord" -> opt(p.lastRecord.map(_.toString)),
      "underReplicated" -> p.underReplicated.asJson, "offline" -> p.offline.asJson))

  implicit val configEncoder: Encoder[ConfigSetting] = Encoder.instance(c =>
    Json.obj("name" -> c.name.asJson, "value" -> opt(c.value), "source" -> c.source.asJson, "sensitive" -> c.sensitive.asJson,
      "overrides" -> Json.fromValues(c.overrides.map(o => Json.obj("name" -> o.name.asJson, "value" -> opt(o.value), "source" -> o.source.asJson)))))

  def reportJson(r: TopicReport): Json = {
    val t = r.details
    Json.obj(
      "topic" -> t.name.asJson, "internal" -> t.internal.asJson, "topicId" -> t.topicId.asJson, "partitionCount" -> t.partitions.size.asJson,
      "replicationFactor" -> t.replicationFactor.asJson, "underReplicated" -> t.underReplicated.asJson, "offline" -> t.offline.asJson,
      "declared" -> r.declared.asJson, "differences" -> opt(r.differences), "partitions" -> t.partitions.asJson, "configs" -> t.configs.asJson)
  }

  def lineJson(l: TopicLine): Json = {
    val o = l.overview
    Json.obj("topic" -> o.name.asJson, "internal" -> o.internal.asJson, "partitions" -> o.partitions.asJson,
      "replicationFactor" -> o.replicationFactor.asJson, "declared" -> l.declared.asJson, "underReplicated" -> o.underReplicated.asJson,
      "offline" -> o.offline.asJson)
  }

  def listTable(lines: List[TopicLine]): String =
    if (lines.isEmpty) "topics: none"
    else Table.render(List("TOPIC", "PARTITIONS", "REPLICATION", "DECLARED", "UNDER-REPLICATED", "OFFLINE"),
      lines.map { l =>
        val o = l.overview
        List(o.name + (if (o.internal) " (internal)" else ""), o.partitions.toString, o.replicationFactor.toString, if (l.declared) "yes" else "no",
          o.underReplicated.toString, o.offline.toString)
      })

  /** A topic's heading, its partitions, the configs not at Kafka's defaults, and its differences from the topology. */
  def describeTable(r: TopicReport): String = {
    val t = r.details
    val heading = s"topic ${t.name}: ${t.partitions.size} partition${if (t.partitions.size == 1) "" else "s"}, replication ${t.replicationFactor}" +
      (if (t.internal) ", internal" else "") + (if (r.declared) ", declared in the topology" else ", not in the topology") + s", id ${t.topicId}"
    def cell[A](a: Option[A]) = a.fold("-")(_.toString)
    val partitions = Table.render(
      List("PARTITION", "LEADER", "REPLICAS", "ISR", "LOG-START", "LAST-STABLE", "END", "SIZE", "FIRST-RECORD", "LAST-RECORD", "FLAGS"),
      t.partitions.map(p =>
        List(p.partition.toString, cell(p.leader), p.replicas.mkString(","), p.isr.mkString(","), cell(p.logStart), cell(p.lastStable), cell(p.end),
          cell(p.size), cell(p.firstRecord), cell(p.lastRecord), p.flags.mkString(","))))
    val (set, defaults) = t.configs.partition(_.source != "default")
    val configs =
      (if (set.isEmpty) s"configs: all ${defaults.size} at Kafka's defaults (-o json lists them)"
       else Table.render(List("CONFIG", "VALUE", "SOURCE"), set.map(c => List(c.name, c.value.getOrElse("(sensitive)"), c.source)))) +
        (if (defaults.isEmpty || set.isEmpty) "" else s"\n(${defaults.size} more at Kafka's defaults: -o json lists them)")
    val differences = r.differences match {
      case None => "differences from the topology: not declared there"
      case Some(Nil) => "differences from the topology: none"
      case Some(ds) => ("differences from the topology (what topics plan reports):" :: ds.map(d => s"  ${d.kind}  ${d.detail}")).mkString("\n")
    }
    List(heading, partitions, configs, differences).mkString("", "\n\n", "\n")
  }
}

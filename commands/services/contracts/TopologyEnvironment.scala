package bankops.services.contracts

/** What one environment changes of a declared topic: its partitions, its replication, config values over the topic's. */
final case class TopicOverride(partitions: Option[Int], replicationFactor: Option[Int], config: Map[String, String]) {
  def applyTo(t: TopicSpec): TopicSpec =
    t.copy(partitions = partitions.getOrElse(t.partitions), replicationFactor = replicationFactor.getOrElse(t.replicationFactor),
      config = t.config ++ config)
}

/** A named, declared override of the topology for one kind of cluster (a one-broker sandbox cannot hold three
  * replicas): `all` applies to every topic, then `topics` to the ones it names. Chosen with `--environment`, shown
  * in the plan; the topics of no environment are the topology's own.
  */
final case class TopologyEnvironment(name: String, all: TopicOverride, topics: Map[String, TopicOverride]) {
  def applyTo(t: TopicSpec): TopicSpec = topics.get(t.name).fold(all.applyTo(t))(o => o.applyTo(all.applyTo(t)))

  /** One line per change, for the plan: `environment single-broker: replicationFactor 1, min.insync.replicas=1 on every topic`. */
  def describe: List[String] = {
    def parts(o: TopicOverride) =
      o.partitions.map(p => s"partitions $p").toList ++ o.replicationFactor.map(r => s"replicationFactor $r") ++
        o.config.toList.sorted.map { case (k, v) => s"$k=$v" }
    val every = parts(all)
    (if (every.isEmpty) Nil else List(s"environment $name: ${every.mkString(", ")} on every topic")) ++
      topics.toList.sortBy(_._1).map { case (t, o) => s"environment $name: ${parts(o).mkString(", ")} on $t" }
  }
}

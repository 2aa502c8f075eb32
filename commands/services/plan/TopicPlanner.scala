package bankops.services.plan

import bankops.services.contracts.{ConfigValues, Topology}

/** Pure: what must change for the cluster to match the topology. Only what the topology
  * declares is compared, against effective values, so broker defaults never show as drift
  * and the plan right after an apply is empty.
  */
object TopicPlanner {

  /** Internal topics (`__consumer_offsets`, `_schemas`, ...) are never created, changed or deleted. */
  def untouchable(topic: String): Boolean = topic.startsWith("_")

  def plan(topology: Topology, cluster: ClusterState, deleteUnlisted: Boolean = false): TopicPlan = {
    val brokers = cluster.brokers max 1
    val perTopic = topology.topics.map { spec =>
      val rf = spec.replicationFactor
      cluster.topics.get(spec.name) match {
        case None =>
          val tooFew = if (rf > brokers) List(TopicWarning.TooFewBrokers(spec.name, rf, brokers)) else Nil
          (List(TopicChange.Create(spec.name, spec.partitions, rf, spec.config)), tooFew)
        case Some(actual) =>
          val partitions =
            if (spec.partitions > actual.partitions) (List(TopicChange.AddPartitions(spec.name, actual.partitions, spec.partitions)), Nil)
            else if (spec.partitions < actual.partitions)
              (Nil, List(TopicWarning.FewerPartitionsDeclared(spec.name, spec.partitions, actual.partitions)))
            else (Nil, Nil)
          val replication =
            if (actual.replicationFactor != rf) List(TopicWarning.ReplicationDiffers(spec.name, rf, actual.replicationFactor)) else Nil
          val configs = spec.config.toList.sorted.collect {
            case (k, v) if !actual.config.get(k).exists(ConfigValues.same(k, v, _)) => TopicChange.SetConfig(spec.name, k, actual.config.get(k), v)
          }
          (partitions._1 ++ configs, partitions._2 ++ replication)
      }
    }
    val deletes =
      if (!deleteUnlisted) Nil
      else cluster.topics.keys.toList.sorted.filterNot(n => topology.names(n) || untouchable(n)).map(TopicChange.Delete(_))
    TopicPlan(perTopic.flatMap(_._1) ++ deletes, perTopic.flatMap(_._2), topology.environment.toList.flatMap(_.describe))
  }
}

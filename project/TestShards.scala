/** How `./bankops test` deals its suites to JVMs that run at once (build.sbt's testGrouping): the longest first, each
  * to the shard with the least so far, by the seconds each took in a full run. A suite not listed counts one second.
  */
object TestShards {
  /** One shard per two processors, at most three: each shard runs a sandbox of three brokers, and the suites are
    * CPU-bound on two cores (three shards there took 25 minutes for what one JVM does in about as long, each suite
    * three times slower), so a 2-core machine runs them all in one JVM.
    */
  def default(processors: Int): Int = math.max(1, math.min(3, processors / 2))

  /** BANKOPS_TEST_SHARDS, or [[default]] for this machine; 1 runs every suite in one JVM. */
  def count(setting: Option[String]): Int =
    // ./bankops test refuses any other value before sbt starts, with the same words.
    setting.filter(_.nonEmpty).fold(default(java.lang.Runtime.getRuntime.availableProcessors)) { s =>
      Some(s).filter(_.matches("[1-8]")).map(_.toInt).getOrElse(
        sys.error(s"BANKOPS_TEST_SHARDS must be a number from 1 to 8, not '$s'"))
    }

  /** Seconds per suite, from a full run on a fresh clone (the slowest; the rest take a few seconds or less). */
  val seconds: Map[String, Int] = Map(
    "bankops.jobs.handler.HandlerSuite" -> 277,
    "bankops.jobs.handler.HandlerRecoverySuite" -> 277,
    "bankops.workflows.WorkflowsSuite" -> 157,
    "bankops.DemoSuite" -> 89,
    "bankops.jobs.topics.TopicsSuite" -> 83,
    "bankops.jobs.groups.GroupsSuite" -> 81,
    "bankops.jobs.latency.LatencySuite" -> 72,
    "bankops.jobs.sandbox.ClusterSuite" -> 58,
    "bankops.jobs.handler.HandlerInputsSuite" -> 56,
    "bankops.jobs.sandbox.MtlsSuite" -> 38,
    "bankops.jobs.replay.ReplayRestartSuite" -> 24,
    "bankops.jobs.NotAuthorizedSuite" -> 23,
    "bankops.jobs.FaultsSuite" -> 20,
    "bankops.jobs.balances.BalancesSuite" -> 19,
    "bankops.jobs.replay.ReplaySuite" -> 17,
    "bankops.jobs.inspect.InspectSuite" -> 17,
    "bankops.jobs.deploy.AccessDeploySuite" -> 16
  )

  /** The suites' names dealt to `shards` groups; every suite lands in exactly one. A listed suite that no longer exists
    * fails the build, so a rename cannot quietly unbalance the shards.
    */
  def assign(suites: Seq[String], shards: Int): List[Set[String]] = {
    val gone = seconds.keySet -- suites
    if (gone.nonEmpty) sys.error(s"project/TestShards.scala lists suites that do not exist: ${gone.toList.sorted.mkString(", ")}")
    val longestFirst = suites.distinct.sortBy(s => (-seconds.getOrElse(s, 1), s))
    val empty = List.fill(shards)((0, Set.empty[String]))
    longestFirst.foldLeft(empty) { (groups, s) =>
      val i = groups.indices.minBy(i => (groups(i)._1, i))
      groups.updated(i, (groups(i)._1 + seconds.getOrElse(s, 1), groups(i)._2 + s))
    }.map(_._2).filter(_.nonEmpty)
  }
}

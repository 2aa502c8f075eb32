/** How `./bankops test` deals its suites to JVMs that run at once (build.sbt's testGrouping): the longest first, each
  * to the shard with the least so far, by the seconds each took in a full run. A suite not listed counts one second.
  */
object TestShards {
  /** One shard per two processors, at most three: each shard runs a sandbox of three brokers, and the suites are
    * CPU-bound on two cores (three shards there took 25 minutes for what one JVM does in about as long, each suite
    * three times slower), so a 2-core machine runs them all in one JVM.
    */
  def default(processors: Int): Int = math.max(1, math.min(3, processors / 2))

  /** How many tests a shard's JVM runs on its sandbox at once: two more than its share of the processors, since a test
    * spends most of its time waiting on timeouts and paced loads. Two at once on this 2-core machine left 256 of 640 s
    * of shared turns to one suite alone; with three, once the brokers' TLS cost less, 97 of 792 core-s of shared turns
    * went idle, and four took the whole run from 12:51 to 12:14.
    */
  def sharedAtOnce(processors: Int, shards: Int): Int = math.max(1, processors / shards) + 2

  /** How many suites a shard's JVM runs at once: two more than [[sharedAtOnce]], so while suites wait to run a test
    * alone (tests/support/OnSandbox.scala gathers them), others still fill the shared turns. sbt's ForkMain sizes its
    * pool by the JVM's processor count, so the JVM is told that many (-XX:ActiveProcessorCount).
    */
  def suitesAtOnce(processors: Int, shards: Int): Int = sharedAtOnce(processors, shards) + 2

  /** BANKOPS_TEST_SHARDS, or [[default]] for this machine; 1 runs every suite in one JVM. */
  def count(setting: Option[String]): Int =
    // ./bankops test refuses any other value before sbt starts, with the same words.
    setting.filter(_.nonEmpty).fold(default(java.lang.Runtime.getRuntime.availableProcessors)) { s =>
      Some(s).filter(_.matches("[1-8]")).map(_.toInt).getOrElse(
        sys.error(s"BANKOPS_TEST_SHARDS must be a number from 1 to 8, not '$s'"))
    }

  /** Seconds each suite's tests held the sandbox in a full run (`BANKOPS_TEST_TIMELINE`, tests/support/OnSandbox.scala);
    * the rest take a few seconds or less.
    */
  val seconds: Map[String, Int] = Map(
    "bankops.jobs.handler.HandlerSuite" -> 304,
    "bankops.jobs.handler.HandlerRecoverySuite" -> 268,
    "bankops.workflows.WorkflowsSuite" -> 238,
    "bankops.jobs.latency.LatencySuite" -> 120,
    "bankops.DemoSuite" -> 102,
    "bankops.jobs.groups.GroupsSuite" -> 85,
    "bankops.jobs.sandbox.ClusterSuite" -> 73,
    "bankops.jobs.handler.HandlerInputsSuite" -> 48,
    "bankops.jobs.NotAuthorizedSuite" -> 40,
    "bankops.jobs.sandbox.MtlsSuite" -> 39,
    "bankops.jobs.replay.ReplaySuite" -> 37,
    "bankops.jobs.topics.TopicsSuite" -> 33,
    "bankops.jobs.FaultsSuite" -> 20,
    "bankops.jobs.balances.BalancesSuite" -> 19,
    "bankops.jobs.inspect.InspectSuite" -> 18,
    "bankops.jobs.deploy.AccessDeploySuite" -> 15,
    "bankops.jobs.heartbeat.HeartbeatSuite" -> 14,
    "bankops.jobs.capture.CaptureSuite" -> 14,
    "bankops.jobs.handler.LedgerDbSuite" -> 12,
    "bankops.jobs.sandbox.SandboxSuite" -> 12,
    "bankops.jobs.produce.ProduceSuite" -> 10,
    "bankops.jobs.BadInputSuite" -> 10
  )

  /** The suites' names dealt to `shards` groups, each longest first: a JVM runs its suites side by side in the order
    * given (sbt's ForkMain, a fixed pool), so a long suite started last would run on alone at the end. Every suite lands
    * in exactly one group. A listed suite that no longer exists fails the build, so a rename cannot quietly unbalance them.
    */
  def assign(suites: Seq[String], shards: Int): List[List[String]] = {
    val gone = seconds.keySet -- suites
    if (gone.nonEmpty) sys.error(s"project/TestShards.scala lists suites that do not exist: ${gone.toList.sorted.mkString(", ")}")
    val longestFirst = suites.distinct.sortBy(s => (-seconds.getOrElse(s, 1), s))
    val empty = List.fill(shards)((0, List.empty[String]))
    longestFirst.foldLeft(empty) { (groups, s) =>
      val i = groups.indices.minBy(i => (groups(i)._1, i))
      groups.updated(i, (groups(i)._1 + seconds.getOrElse(s, 1), groups(i)._2 :+ s))
    }.map(_._2).filter(_.nonEmpty)
  }
}

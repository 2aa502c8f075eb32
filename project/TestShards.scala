/** How `./bankops test` deals its suites to JVMs that run at once (build.sbt's testGrouping): the longest first, each
  * to the shard with the least so far, by the seconds each ran in a full run. A suite not listed counts one second.
  */
object TestShards {
  /** One shard per two processors, at most three: each shard runs a sandbox of three brokers, and the suites are
    * CPU-bound on two cores (three shards there took 25 minutes for what one JVM does in about as long, each suite
    * three times slower), so a 2-core machine runs them all in one JVM.
    */
  def default(processors: Int): Int = math.max(1, math.min(3, processors / 2))

  /** How many tests a shard's JVM runs on its sandbox at once: three more than its share of the processors, since a
    * test spends most of its time waiting on timeouts and paced loads. Two at once on this 2-core machine left 256 of
    * 640 s of shared turns to one suite alone; with three, once the brokers' TLS cost less, 97 of 792 core-s of shared
    * turns went idle; four took the whole run from 12:51 to 12:14, and five from 11:40 to 9:59 and 11:00 (runs 36-38:
    * the waits for a turn alone left 9 and 42 core-s idle, 47 before, as more tests were in flight to fill them).
    */
  def sharedAtOnce(processors: Int, shards: Int): Int = math.max(1, processors / shards) + 3

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

  /** Seconds each suite ran in a full run: munit's times of its tests summed, their waits for a turn on the sandbox
    * included (tests/bench/suite-seconds.py reads them from the run's log). How long a suite holds one of the JVM's
    * places, not the sandbox: a small suite with a test alone started last waited for its turn at the end of the run, and
    * a suite without the sandbox that waits on timeouts ran on by itself after every other. The rest take a few seconds.
    */
  val seconds: Map[String, Int] = Map(
    "bankops.jobs.handler.HandlerRecoverySuite" -> 788,
    "bankops.workflows.WorkflowsSuite" -> 783,
    "bankops.jobs.handler.HandlerSuite" -> 595,
    "bankops.jobs.NotAuthorizedSuite" -> 436,
    "bankops.jobs.handler.HandlerInputsSuite" -> 373,
    "bankops.jobs.latency.LatencySuite" -> 364,
    "bankops.jobs.replay.ReplaySuite" -> 354,
    "bankops.DemoSuite" -> 268,
    "bankops.jobs.topics.TopicsSuite" -> 226,
    "bankops.jobs.handler.HandlerHostileSuite" -> 203,
    "bankops.jobs.context.ContextSuite" -> 163, // its second sandbox starts in ~20 s, outside munit's times
    "bankops.jobs.groups.GroupsSuite" -> 162,
    "bankops.jobs.sandbox.MtlsSuite" -> 155,
    "bankops.jobs.schemas.SchemasSuite" -> 152,
    "bankops.jobs.BoundedMemorySuite" -> 128,
    "bankops.jobs.sandbox.ClusterSuite" -> 121,
    "bankops.jobs.doctor.DoctorSuite" -> 101,
    "bankops.jobs.capture.CaptureSuite" -> 88,
    "bankops.jobs.HostileInputSuite" -> 84,
    "bankops.base.LauncherSuite" -> 68, // skipped in the run that measured the rest (its sources changed under it)
    "bankops.jobs.capture.RestoreSuite" -> 61,
    "bankops.jobs.BadInputSuite" -> 50,
    "bankops.jobs.deploy.AccessDeploySuite" -> 48,
    "bankops.jobs.inspect.InspectSuite" -> 44,
    "bankops.jobs.balances.BalancesSuite" -> 43,
    "bankops.jobs.produce.ProduceSuite" -> 38,
    "bankops.services.ParsersFuzzSuite" -> 36,
    "bankops.jobs.FaultsSuite" -> 30,
    "bankops.jobs.handler.LedgerDbSuite" -> 29,
    "bankops.jobs.heartbeat.HeartbeatSuite" -> 23,
    "bankops.base.StartInterruptSuite" -> 22,
    "bankops.jobs.replay.ReplayInterruptSuite" -> 21,
    "bankops.jobs.sandbox.SandboxSuite" -> 20,
    "bankops.services.config.ClientIdentitySuite" -> 20,
    "bankops.services.registry.RegistryHttpSuite" -> 18,
    "bankops.services.records.RecordLineSuite" -> 14,
    "bankops.base.TextFileSuite" -> 13,
    "bankops.services.config.TlsProfileSuite" -> 13,
    "bankops.jobs.handler.CommandDecoderSuite" -> 8,
    "bankops.jobs.sandbox.TlsSuite" -> 8,
    "bankops.services.load.LearningGeneratorSuite" -> 7
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

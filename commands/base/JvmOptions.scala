package bankops.base

/** The JVM options of each kind of process bankops starts besides the CLI (whose options are project.scala's).
  *
  * Compiled into the sbt meta-build too, which writes `Handler` to `.bankops/build/handler-java-options` for the
  * launcher: so it stays Scala 2.12 source compatible and uses only the standard library.
  */
object JvmOptions {

  /** The command handler is a long-running service: the serial collector, a young generation that a batch of 1,000
    * commands does not overflow, and C2. It ran C1 only while its memory was a target (C2 costs ~45 MiB more), but
    * with the database's reads linear again the loop's own code is the bottleneck at saturation: C2 took it from
    * 6,184 to 7,802 commands/s (tests/bench/handler-throughput.sh, HANDLER_JAVA_OPTS, one run). MetaspaceSize=64m:
    * the class metadata it loads (~60 MB) no longer triggers full collections while it starts (one took 192 ms).
    * -UseParallelGC first: the launcher and scala-cli put project.scala's collector before these.
    */
  val Handler: List[String] = List("-XX:-UseParallelGC", "-XX:+UseSerialGC", "-Xms64m", "-Xmx128m", "-Xmn48m", "-Xss512k",
    "-XX:ReservedCodeCacheSize=48m", "-XX:MetaspaceSize=64m")

  /** The jobs that move records hold a bounded window of them, never a whole input, so their heap is bounded too: a
    * run's memory does not grow with the records it moves (the default heap is a quarter of the machine's memory, and
    * the parallel collector lets it fill: capture of 1,000,000 records peaked at 644 to 904 MiB resident). 320 MiB and
    * the ~170 MiB outside the heap (class archive, GC, code, the JIT's own) keep each near 500 MiB at 1,000,000 records
    * and at 10,000,000 (tests/bench/datapath.sh). The young generation is 128 MiB of it, not project.scala's 256: the
    * rest must hold what is long-lived, the consumer's fetched batches (up to fetch.max.bytes a broker) and the
    * producer's buffer (buffer.memory).
    */
  val DataJobs: List[String] = List("-Xmx320m", "-Xmn128m")

  /** The jobs [[DataJobs]] is for; the launcher names the same (a test keeps them equal). */
  val DataJobNames: List[String] = List("inspect", "capture", "restore", "replay", "produce")

  /** The sandbox's broker. */
  val Kafka: List[String] = List("-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true")

  /** A Kafka tool the sandbox runs once and waits for (StorageTool's format, before a new broker's first start): it is
    * over in a second, which C2's compiling and G1's threads only lengthen on two cores.
    */
  val KafkaTool: List[String] = List("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")

  /** The sandbox's schema registry (Apicurio). C1 alone: it serves a few requests a second at most, and C2's compiling
    * at its start took the cores the brokers were starting on (`sandbox restart registry`, three runs each way: 4.7 to
    * 4.8 s, 7.1 to 7.4 CPU-s and ~222 MiB resident when ready with C2; 3.1 to 4.3 s, 3.4 to 4.1 CPU-s and ~183 MiB with C1;
    * 300 look-ups, compatibility checks and reads by id in a row answered as fast, medians 2.2 to 3.7 ms against 2.5 to 4.9).
    */
  val Registry: List[String] = List("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
}

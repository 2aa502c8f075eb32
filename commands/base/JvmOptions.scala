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

  /** The sandbox's broker. */
  val Kafka: List[String] = List("-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true")

  /** The sandbox's schema registry (Apicurio). */
  val Registry: List[String] = List("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC")
}

package bankops.base

/** The JVM options of each kind of process bankops starts besides the CLI (whose options are project.scala's).
  *
  * Compiled into the sbt meta-build too, which writes `Handler` to `.bankops/build/handler-java-options` for the
  * launcher: so it stays Scala 2.12 source compatible and uses only the standard library.
  */
object JvmOptions {

  /** The command handler is a long-running service: a small heap, the serial collector, C1 only (C2's compilations
    * cost memory and, on 2 cores shared with the broker, time). MetaspaceSize=64m: the class metadata it loads
    * (~60 MB) no longer triggers full collections while it starts (one took 192 ms). -UseParallelGC first: the
    * launcher and scala-cli put project.scala's collector before these. Peak RSS at 1,000 commands/s:
    * tests/bench/handler-throughput.sh.
    */
  val Handler: List[String] = List("-XX:-UseParallelGC", "-XX:+UseSerialGC", "-Xms16m", "-Xmx48m", "-Xmn8m", "-Xss512k",
    "-XX:TieredStopAtLevel=1", "-XX:ReservedCodeCacheSize=24m", "-XX:MetaspaceSize=64m")

  /** The sandbox's broker. */
  val Kafka: List[String] = List("-Xms256m", "-Xmx1g", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true")

  /** The sandbox's schema registry (Apicurio). */
  val Registry: List[String] = List("-Xms128m", "-Xmx512m", "-XX:+UseSerialGC")
}

package bankops.support

import cats.effect.IO

/** Kafka's own command-line tools from the sandbox's jars: independent readers of what bankops wrote. */
object KafkaTools {

  /** A short-lived tool's JVM: C1 only and the serial collector start it with about half the CPU (these suites run
    * dozens of them on two cores), and answer the same.
    */
  private val Quick = List("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC") ++ SpawnedClassData.Quiet

  /** `tool` (a class of Kafka's, e.g. `org.apache.kafka.tools.TopicCommand`) against the sandbox as its operator: its
    * stdout; a non-zero exit fails.
    */
  def run(tool: String, args: String*): IO[String] = SandboxFixture.connection.flatMap(c =>
    IO.blocking {
      val cp = os.read(SandboxFixture.layout.kafkaClasspath)
      ClassData.around(tool)(cds =>
        os.proc(List("java") ++ Quick ++ cds ++ List("-cp", cp, tool, "--bootstrap-server", c.bootstrapServers, "--command-config",
          SandboxFixture.layout.clientProperties.toString) ++ args)
          .call(stderr = os.Pipe).out.text())
    })

  /** Each tool's classes, archived (AppCDS) by its first run in this test JVM and mapped by its later ones: a run of
    * TopicCommand took 1.35 CPU-s without, 0.77 with, and the recording run 2.7. A run while the first still records, or
    * after a recording that wrote nothing, loads its classes as before. The archives go with the run's temporary files.
    */
  private object ClassData {
    private val dir = os.Path(sys.props("java.io.tmpdir")) / "kafka-tools-cds"
    private val tried = collection.concurrent.TrieMap.empty[String, Unit]

    def around[A](tool: String)(run: List[String] => A): A = {
      val archive = dir / s"$tool.jsa"
      if (os.exists(archive)) run(List(s"-XX:SharedArchiveFile=$archive"))
      else if (tried.putIfAbsent(tool, ()).isEmpty) {
        os.makeDir.all(dir)
        val partial = dir / s"$tool.partial"
        // Written as the tool exits, whatever its exit code; moved into place whole.
        try run(List(s"-XX:ArchiveClassesAtExit=$partial"))
        finally if (os.exists(partial)) os.move(partial, archive, atomicMove = true)
      } else run(Nil)
    }
  }

  /** Committed offsets per partition of `topic` as Kafka's kafka-consumer-groups tool (ConsumerGroupCommand) reports them. */
  def committed(group: String, topic: String): IO[Map[Int, Long]] =
    run("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--describe", "--group", group, "--offsets").map { out =>
      out.linesIterator.map(_.trim.split("\\s+").toList).collect {
        case `group` :: `topic` :: p :: current :: _ if current.forall(_.isDigit) => p.toInt -> current.toLong
      }.toMap
    }
}

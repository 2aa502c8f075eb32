package bankops.support

import cats.effect.IO

/** Kafka's own command-line tools from the sandbox's jars: independent readers of what bankops wrote. */
object KafkaTools {

  /** A short-lived tool's JVM: C1 only and the serial collector start it with about half the CPU (these suites run
    * dozens of them on two cores), and answer the same.
    */
  private val Quick = List("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto")

  /** `tool` (a class of Kafka's, e.g. `org.apache.kafka.tools.TopicCommand`) against the sandbox as its operator: its
    * stdout; a non-zero exit fails.
    */
  def run(tool: String, args: String*): IO[String] = SandboxFixture.connection.flatMap(c =>
    IO.blocking {
      val cp = os.read(SandboxFixture.layout.kafkaClasspath)
      os.proc(List("java") ++ Quick ++ List("-cp", cp, tool, "--bootstrap-server", c.bootstrapServers, "--command-config",
        SandboxFixture.layout.clientProperties.toString) ++ args)
        .call(stderr = os.Pipe).out.text()
    })

  /** Committed offsets per partition of `topic` as Kafka's kafka-consumer-groups tool (ConsumerGroupCommand) reports them. */
  def committed(group: String, topic: String): IO[Map[Int, Long]] =
    run("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--describe", "--group", group, "--offsets").map { out =>
      out.linesIterator.map(_.trim.split("\\s+").toList).collect {
        case `group` :: `topic` :: p :: current :: _ if current.forall(_.isDigit) => p.toInt -> current.toLong
      }.toMap
    }
}

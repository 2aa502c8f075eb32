package bankops.support

import cats.effect.IO

/** Kafka's own command-line tools from the sandbox's jars: independent readers of what bankops wrote. */
object KafkaTools {

  /** Committed offsets per partition of `topic` as Kafka's kafka-consumer-groups tool (ConsumerGroupCommand) reports them. */
  def committed(group: String, topic: String): IO[Map[Int, Long]] = SandboxFixture.connection.flatMap(c =>
    IO.blocking {
      val cp = os.read(SandboxFixture.layout.kafkaClasspath)
      val out = os.proc("java", "-cp", cp, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server", c.bootstrapServers,
        "--command-config", SandboxFixture.layout.clientProperties.toString, "--describe", "--group", group, "--offsets")
        .call(stderr = os.Pipe).out.text()
      out.linesIterator.map(_.trim.split("\\s+").toList).collect {
        case `group` :: `topic` :: p :: current :: _ if current.forall(_.isDigit) => p.toInt -> current.toLong
      }.toMap
    })
}

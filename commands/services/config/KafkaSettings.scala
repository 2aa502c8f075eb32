package bankops.services.config

final case class KafkaSettings(
    bootstrapServers: Sourced[String],
    commandConfig: Option[Sourced[os.Path]],
    properties: Map[String, String]
) {

  /** Everything the Java clients take: bankops' defaults, the file's properties over them, and the bootstrap servers. */
  def clientProperties: Map[String, String] =
    KafkaSettings.defaults ++ properties.filter { case (k, _) => ClientProperties.kafkaKeys(k) } + ("bootstrap.servers" -> bootstrapServers.value)
}

object KafkaSettings {
  /** No JMX reporter: its MBean server is ~180 classes (about 1 MiB of the handler's memory) and a job's figures are its
    * own output. A command-config with `auto.include.jmx.reporter=true` brings it back. One SSL context per process for
    * the same stores ([[SharedSslEngineFactory]]); a command-config naming its own `ssl.engine.factory.class` keeps it.
    */
  val defaults: Map[String, String] =
    Map("auto.include.jmx.reporter" -> "false", "ssl.engine.factory.class" -> classOf[SharedSslEngineFactory].getName)
}

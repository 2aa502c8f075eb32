package bankops.jobs.sandbox

/** Where the sandbox keeps its state, below one directory (default `.bankops/sandbox`). */
final case class SandboxLayout(dir: os.Path) {
  val tls: TlsFiles = TlsFiles(dir / "tls")
  val secretsFile: os.Path = dir / "secrets.json"
  /** The operator's client settings: what `sandbox env` hands out unless asked for another identity. */
  val clientProperties: os.Path = dir / "client.properties"
  /** One client settings file per identity and way of authenticating (see [[ClientConfig]]). */
  val identitiesDir: os.Path = dir / "identities"
  /** The database password alone, for the context `sandbox` to name (by file, as every context keeps its secrets). */
  val dbPasswordFile: os.Path = dir / "db-password"
  /** The id every broker's storage is formatted with: one cluster. */
  val kafkaClusterId: os.Path = dir / "kafka-cluster-id"
  def kafkaDir(node: Int): os.Path = dir / KafkaService.name(node)
  /** Kafka's jars, as `java -cp` takes them (for Kafka's own tools beside the sandbox). */
  def kafkaClasspath: os.Path = kafkaDir(1) / "classpath"
  val registryDir: os.Path = dir / "registry"
  val postgresDir: os.Path = dir / "postgres"
  def log(service: String): os.Path = dir / service / s"$service.log"
  def pidFile(service: String): os.Path = bankops.services.config.SandboxConnection.pidFile(dir, service)
}

package bankops.jobs.sandbox

/** Where the sandbox keeps its state, below one directory (default `.bankops/sandbox`). */
final case class SandboxLayout(dir: os.Path) {
  val tls: TlsFiles = TlsFiles(dir / "tls")
  val secretsFile: os.Path = dir / "secrets.json"
  val clientProperties: os.Path = dir / "client.properties"
  /** The database password alone, for the context `sandbox` to name (by file, as every context keeps its secrets). */
  val dbPasswordFile: os.Path = dir / "db-password"
  val kafkaDir: os.Path = dir / "kafka"
  val registryDir: os.Path = dir / "registry"
  val postgresDir: os.Path = dir / "postgres"
  def log(service: String): os.Path = dir / service / s"$service.log"
  def pidFile(service: String): os.Path = bankops.services.config.SandboxConnection.pidFile(dir, service)
}

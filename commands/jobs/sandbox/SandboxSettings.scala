package bankops.jobs.sandbox

import cats.syntax.all._
import com.monovore.decline.Opts

/** Ports and options of the sandbox; defaults keep clear of a developer's own
  * Kafka (9092), registry (8081) and PostgreSQL (5432).
  */
final case class SandboxSettings(
    kafkaPort: Int = 19092,
    controllerPort: Int = 19093,
    registryPort: Int = 18081,
    dbPort: Int = 15432,
    mtls: Boolean = false,
    registryTls: Boolean = false
) {
  def bootstrap: String = s"localhost:$kafkaPort"
  def registryUrl: String = s"${if (registryTls) "https" else "http"}://localhost:$registryPort/apis/ccompat/v7"
  def dbUrl: String = s"jdbc:postgresql://127.0.0.1:$dbPort/balancedb"
}

object SandboxSettings {
  val DbUser = "bank"

  private def port(name: String, env: String, default: Int): Opts[Int] =
    (Opts.option[Int](name, s"Port (env $env; default $default).", metavar = "PORT") orElse Opts.env[Int](env, s"Port for $name."))
      .withDefault(default)
      .mapValidated(p => if (p > 0 && p < 65536) p.validNel else s"--$name must be a port number, not $p".invalidNel)

  val opts: Opts[SandboxSettings] = (
    port("kafka-port", "BANKOPS_KAFKA_PORT", 19092),
    port("controller-port", "BANKOPS_CONTROLLER_PORT", 19093),
    port("registry-port", "BANKOPS_REGISTRY_PORT", 18081),
    port("db-port", "BANKOPS_DB_PORT", 15432),
    Opts.flag("mtls", "Make the broker require client certificates (mutual TLS).").orFalse,
    Opts.flag("registry-tls", "Serve the registry over HTTPS with the sandbox CA.").orFalse
  ).mapN(SandboxSettings.apply)

  /** What `sandbox up` with no flags starts: the defaults, or the ports the environment names. */
  def fromEnv(env: Map[String, String]): Either[String, SandboxSettings] =
    com.monovore.decline.Command("up", "")(opts).parse(Nil, env).left.map(_.errors.mkString("; "))
}

package bankops.jobs.sandbox

import cats.syntax.all._
import com.monovore.decline.Opts

/** Ports and options of the sandbox; defaults keep clear of a developer's own
  * Kafka (9092), registry (8081) and PostgreSQL (5432). Broker `n` (from 1) takes a block of ten ports from the
  * first broker's: its SSL listener at `kafkaPort + 10(n-1)`, its SCRAM listener two above, its controller at
  * `controllerPort + 10(n-1)`.
  */
final case class SandboxSettings(
    kafkaPort: Int = 19092,
    controllerPort: Int = 19093,
    registryPort: Int = 18081,
    dbPort: Int = 15432,
    registryTls: Boolean = false,
    brokers: Int = SandboxSettings.DefaultBrokers
) {
  def nodes: List[Int] = (1 to brokers).toList
  def sslPort(node: Int): Int = kafkaPort + SandboxSettings.PortStep * (node - 1)
  def scramPort(node: Int): Int = sslPort(node) + 2
  def controllerPortOf(node: Int): Int = controllerPort + SandboxSettings.PortStep * (node - 1)

  /** Clients authenticating with a certificate. */
  def bootstrap: String = nodes.map(n => s"localhost:${sslPort(n)}").mkString(",")

  /** Clients authenticating as a SCRAM user (SASL over TLS). */
  def scramBootstrap: String = nodes.map(n => s"localhost:${scramPort(n)}").mkString(",")

  def quorumVoters: String = nodes.map(n => s"$n@localhost:${controllerPortOf(n)}").mkString(",")
  def registryUrl: String = s"${if (registryTls) "https" else "http"}://localhost:$registryPort/apis/ccompat/v7"
  def dbUrl: String = s"jdbc:postgresql://127.0.0.1:$dbPort/balancedb"

  /** The topology's environment for this cluster: a one-broker sandbox cannot hold three replicas. */
  def topologyEnvironment: Option[String] = if (brokers < 3) Some(SandboxSettings.SmallEnvironment) else None
}

object SandboxSettings {
  val DbUser = "bank"
  val DefaultBrokers = 3
  val MaxBrokers = 5
  private val PortStep = 10

  /** The override `schemas/topology.json` declares for clusters of fewer than three brokers. */
  val SmallEnvironment = "single-broker"

  private def port(name: String, env: String, default: Int): Opts[Int] =
    (Opts.option[Int](name, s"Port (env $env; default $default).", metavar = "PORT") orElse Opts.env[Int](env, s"Port for $name."))
      .withDefault(default)
      .mapValidated(p => if (p > 0 && p < 65536) p.validNel else s"--$name must be a port number, not $p".invalidNel)

  private val brokersOpt: Opts[Int] =
    (Opts.option[Int]("brokers", s"Kafka brokers to run, 1 to $MaxBrokers (env BANKOPS_BROKERS; default $DefaultBrokers).", metavar = "N")
      orElse Opts.env[Int]("BANKOPS_BROKERS", "Kafka brokers to run."))
      .mapValidated(n => if (n >= 1 && n <= MaxBrokers) n.validNel else s"--brokers must be 1 to $MaxBrokers, not $n".invalidNel)

  private val Defaults = SandboxSettings()

  /** Settings asked for; `brokersGiven` false: the number of brokers was left out, so a sandbox that has a cluster
    * keeps its shape (a new one gets [[DefaultBrokers]]).
    */
  final case class Requested(settings: SandboxSettings, brokersGiven: Boolean)

  val requested: Opts[Requested] = (
    port("kafka-port", "BANKOPS_KAFKA_PORT", Defaults.kafkaPort),
    port("controller-port", "BANKOPS_CONTROLLER_PORT", Defaults.controllerPort),
    port("registry-port", "BANKOPS_REGISTRY_PORT", Defaults.registryPort),
    port("db-port", "BANKOPS_DB_PORT", Defaults.dbPort),
    Opts.flag("registry-tls", "Serve the registry over HTTPS with the sandbox CA.").orFalse,
    brokersOpt.orNone
  ).mapN((kafka, controller, registry, db, tls, brokers) =>
    Requested(SandboxSettings(kafkaPort = kafka, controllerPort = controller, registryPort = registry, dbPort = db, registryTls = tls,
        brokers = brokers.getOrElse(DefaultBrokers)), brokersGiven = brokers.isDefined))

  /** What `sandbox up` with no flags starts: the defaults, or the ports (and brokers) the environment names. */
  def fromEnv(env: Map[String, String]): Either[String, Requested] =
    com.monovore.decline.Command("up", "")(requested).parse(Nil, env).left.map(_.errors.mkString("; "))
}

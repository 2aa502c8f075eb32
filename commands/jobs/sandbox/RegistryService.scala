package bankops.jobs.sandbox

import cats.effect.{IO, Resource}

import scala.concurrent.duration._

import bankops.base.JvmOptions
import bankops.services.registry.RegistryClient

/** Apicurio Registry, whose Confluent-compatible API is at `/apis/ccompat/v7`,
  * storing its data in the sandbox's PostgreSQL so schemas and ids survive a restart.
  */
private[sandbox] final class RegistryService(ctx: SandboxContext) extends SpawnedService {
  val name = "registry"
  private val dir = ctx.layout.registryDir
  private val log = ctx.layout.log(name)
  private val Marker = "apicurio-registry-app"
  protected val process: ServiceProcess = ServiceProcess(ctx.layout.pidFile(name), Marker)
  protected val grace: FiniteDuration = 20.seconds
  private val s = ctx.settings

  def version: IO[String] = IO.pure(s"Apicurio ${Artifacts.ApicurioVersion}")
  def address: String = s.registryUrl
  def ports: List[Int] = List(s.registryPort)
  // Its storage is the sandbox's PostgreSQL: a new database port is a restart too.
  def startedWith(settings: SandboxSettings): Any = (settings.registryPort, settings.registryTls, settings.dbPort)

  private def client: Resource[IO, RegistryClient] =
    RegistryClient.resource(s.registryUrl, ClientConfig.properties(ctx.layout, ctx.secrets), None, None, 5.seconds)

  def ready: IO[Unit] = client.use(_.subjects.void)

  def start: IO[Unit] =
    for {
      _ <- ctx.requirePortFree(name, s.registryPort)
      runner <- ctx.artifacts.apicurioRunner
      java = (os.Path(sys.props("java.home")) / "bin" / "java").toString
      http =
        if (s.registryTls)
          Seq(s"-Dquarkus.http.ssl-port=${s.registryPort}", "-Dquarkus.http.insecure-requests=disabled",
            s"-Dquarkus.http.ssl.certificate.key-store-file=${ctx.layout.tls.broker}", "-Dquarkus.http.ssl.certificate.key-store-file-type=PKCS12")
        else Seq(s"-Dquarkus.http.port=${s.registryPort}")
      // Passwords reach Apicurio through its environment, not its command line.
      env = Map(
        "APICURIO_DATASOURCE_PASSWORD" -> ctx.secrets.dbPassword,
        "QUARKUS_HTTP_SSL_CERTIFICATE_KEY_STORE_PASSWORD" -> ctx.secrets.tlsPassword
      )
      _ <- IO.blocking(os.makeDir.all(dir))
      pid <- Processes.spawnDetached(
        // record-request-start-time: the access log's response_time is filled ("-" without it), so a slow answer
        // shows in registry.log with how long it took.
        Seq(java) ++ JvmOptions.Registry ++ Seq("-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.record-request-start-time=true") ++
          http ++ Seq(
            "-Dapicurio.storage.kind=sql", "-Dapicurio.storage.sql.kind=postgresql",
            s"-Dapicurio.datasource.url=jdbc:postgresql://127.0.0.1:${s.dbPort}/registry",
            s"-Dapicurio.datasource.username=${SandboxSettings.DbUser}",
            "-jar", runner.toString),
        dir, log, env)
      _ <- process.record(pid)
      _ <- ctx.awaitReady(name, 120.seconds, process.isAlive(pid))(ready)
      _ <- initialiseCompatibility
    } yield ()

  /** Confluent's default is BACKWARD; Apicurio starts at NONE. Set once, so an operator's later choice stands. */
  private def initialiseCompatibility: IO[Unit] = {
    val marker = dir / "compatibility-initialised"
    IO.blocking(os.exists(marker)).ifM(IO.unit, client.use(_.setGlobalCompatibility("BACKWARD")) >> IO.blocking(os.write.over(marker, "BACKWARD")))
  }
}

package bankops.jobs.sandbox

import cats.effect.IO

import scala.concurrent.duration._

import bankops.base.JvmOptions
import bankops.services.config.{KafkaSettings, Source, Sourced}
import bankops.services.kafka.KafkaClients

/** A single-node KRaft broker from Maven Central's jars. Clients reach it over SSL
  * only; the controller listener is SSL too and requires a certificate, so no
  * plaintext port is open at all.
  */
final class KafkaService(ctx: SandboxContext) extends SandboxService {
  val name = "kafka"
  private val dir = ctx.layout.kafkaDir
  private val log = ctx.layout.log(name)
  private val Marker = "kafka.Kafka"
  private val process = ServiceProcess(ctx.layout.pidFile(name), Marker)
  private val s = ctx.settings

  def pid: IO[Option[Long]] = process.pid
  def version: IO[String] = IO.pure(Artifacts.KafkaVersion)
  def address: String = s.bootstrap
  def ports: List[Int] = List(s.kafkaPort, s.controllerPort)
  def startedWith(settings: SandboxSettings): Any = (settings.kafkaPort, settings.controllerPort, settings.mtls)
  override def upLine(outcome: String): String =
    s"${super.upLine(outcome)} (SSL${if (s.mtls) ", client certificates required" else ""})"

  def clientSettings: KafkaSettings =
    KafkaSettings(Sourced(s.bootstrap, Source.Sandbox), None, ClientConfig.properties(ctx.layout, ctx.secrets))

  def ready: IO[Unit] =
    KafkaClients.admin(clientSettings, 5.seconds).use(_.describeCluster.nodes).flatMap { nodes =>
      if (nodes.isEmpty) IO.raiseError(new IllegalStateException("no broker in the cluster metadata")) else IO.unit
    }

  private def serverProperties: String = {
    val tls = ctx.layout.tls
    val pass = ctx.secrets.tlsPassword
    s"""# written by bankops sandbox on every start
       |process.roles=broker,controller
       |node.id=1
       |controller.quorum.voters=1@localhost:${s.controllerPort}
       |listeners=SSL://127.0.0.1:${s.kafkaPort},CONTROLLER://127.0.0.1:${s.controllerPort}
       |advertised.listeners=SSL://localhost:${s.kafkaPort}
       |listener.security.protocol.map=SSL:SSL,CONTROLLER:SSL
       |inter.broker.listener.name=SSL
       |controller.listener.names=CONTROLLER
       |ssl.keystore.location=${tls.broker}
       |ssl.keystore.type=PKCS12
       |ssl.keystore.password=$pass
       |ssl.key.password=$pass
       |ssl.truststore.location=${tls.truststore}
       |ssl.truststore.type=PKCS12
       |ssl.truststore.password=$pass
       |ssl.enabled.protocols=TLSv1.3,TLSv1.2
       |ssl.endpoint.identification.algorithm=https
       |ssl.client.auth=${if (s.mtls) "required" else "none"}
       |listener.name.controller.ssl.client.auth=required
       |log.dirs=${dir / "data"}
       |num.partitions=1
       |auto.create.topics.enable=false
       |offsets.topic.replication.factor=1
       |transaction.state.log.replication.factor=1
       |transaction.state.log.min.isr=1
       |share.coordinator.state.topic.replication.factor=1
       |share.coordinator.state.topic.min.isr=1
       |group.initial.rebalance.delay.ms=0
       |""".stripMargin
  }

  private val log4j =
    """status = warn
      |appender.out.type = Console
      |appender.out.name = OUT
      |appender.out.layout.type = PatternLayout
      |appender.out.layout.pattern = [%d] %p %m (%c)%n
      |rootLogger.level = info
      |rootLogger.appenderRef.out.ref = OUT
      |logger.request.name = kafka.request.logger
      |logger.request.level = warn
      |logger.state.name = state.change.logger
      |logger.state.level = warn
      |""".stripMargin

  def start: IO[Unit] =
    for {
      _ <- ctx.requirePortFree(name, s.kafkaPort)
      _ <- ctx.requirePortFree(s"$name controller", s.controllerPort)
      cp <- ctx.artifacts.kafkaClasspath
      classpath = cp.mkString(java.io.File.pathSeparator)
      _ <- IO.blocking {
        os.makeDir.all(dir)
        os.write.over(dir / "server.properties", serverProperties, perms = "rw-------")
        os.write.over(dir / "log4j2.properties", log4j)
        os.write.over(dir / "classpath", classpath)
      }
      java = (os.Path(sys.props("java.home")) / "bin" / "java").toString
      formatted <- IO.blocking(os.exists(dir / "data" / "meta.properties"))
      _ <- if (formatted) IO.unit
      else Processes.run(Seq(java, "-cp", classpath, s"-Dlog4j2.configurationFile=${dir / "log4j2.properties"}", "kafka.tools.StorageTool",
          "format", "-t", org.apache.kafka.common.Uuid.randomUuid().toString, "-c", (dir / "server.properties").toString), dir).void
      pid <- Processes.spawnDetached(
        Seq(java) ++ JvmOptions.Kafka ++ Seq(
          s"-Dlog4j2.configurationFile=${dir / "log4j2.properties"}", "-cp", classpath, Marker, (dir / "server.properties").toString),
        dir, log)
      _ <- process.record(pid)
      _ <- ctx.awaitReady(name, 90.seconds, process.isAlive(pid))(ready)
    } yield ()

  def stop: IO[Unit] = process.stop(30.seconds)
}

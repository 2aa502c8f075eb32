package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._

import scala.concurrent.duration._

import bankops.base.JvmOptions
import bankops.services.config.{KafkaSettings, Source, Sourced}
import bankops.services.kafka.KafkaClients

/** One node of the sandbox's KRaft cluster (broker and controller in one process), from Maven Central's jars.
  * Three listeners, all TLS: SSL with a client certificate required, SASL_SSL for SCRAM users, and the controllers'
  * own. The StandardAuthorizer allows nothing no ACL grants, except to the brokers and the operator (super users).
  */
private[sandbox] final class KafkaService(ctx: SandboxContext, node: Int) extends SpawnedService {
  val name: String = KafkaService.name(node)
  private val dir = ctx.layout.kafkaDir(node)
  private val log = ctx.layout.log(name)
  private val Marker = "kafka.Kafka"
  protected val process: ServiceProcess = ServiceProcess(ctx.layout.pidFile(name), Marker)
  protected val grace: FiniteDuration = 30.seconds
  private val s = ctx.settings
  private val sslPort = s.sslPort(node)
  private val scramPort = s.scramPort(node)
  private val controllerPort = s.controllerPortOf(node)

  def version: IO[String] = IO.pure(Artifacts.KafkaVersion)
  def address: String = s"localhost:$sslPort"
  def ports: List[Int] = List(sslPort, scramPort, controllerPort)
  // The whole cluster's shape: a broker started for another quorum would not join this one.
  def startedWith(settings: SandboxSettings): Any = (settings.kafkaPort, settings.controllerPort, settings.brokers)
  override def upLine(outcome: String): String = s"${super.upLine(outcome)} (SSL with client certificates; SCRAM at :$scramPort)"
  override def statusAddress(timeout: FiniteDuration): IO[String] = IO.pure(s"$address, SCRAM :$scramPort")

  /** This node alone, as the operator. */
  private def clientSettings: KafkaSettings =
    KafkaSettings(Sourced(address, Source.Sandbox), None, ClientConfig.properties(ctx.layout, ctx.secrets))

  /** Ready once the cluster's metadata lists this node: it joined the quorum and was unfenced. */
  def ready: IO[Unit] =
    KafkaClients.admin(clientSettings, 5.seconds).use(_.describeCluster.nodes).flatMap { nodes =>
      if (nodes.exists(_.id == node)) IO.unit else IO.raiseError(new IllegalStateException(s"node $node is not in the cluster metadata yet"))
    }

  private def serverProperties: String = {
    val tls = ctx.layout.tls
    val pass = ctx.secrets.tlsPassword
    val replicas = s.brokers min 3
    // Kafka's internal topics get one partition per broker, not 50 each: a follower's fetch walks every partition it
    // follows from that leader (its fetch session), and fetching was 43% of a broker's CPU samples through a test run,
    // when these 100 idle partitions were over a third of the cluster's. A sandbox's few groups and transactional ids
    // need no more. A sandbox made before keeps its 50: brokers go by the partitions a topic has, not by this setting.
    s"""# written by bankops sandbox on every start
       |process.roles=broker,controller
       |node.id=$node
       |controller.quorum.voters=${s.quorumVoters}
       |listeners=SSL://127.0.0.1:$sslPort,SASL_SSL://127.0.0.1:$scramPort,CONTROLLER://127.0.0.1:$controllerPort
       |advertised.listeners=SSL://localhost:$sslPort,SASL_SSL://localhost:$scramPort
       |listener.security.protocol.map=SSL:SSL,SASL_SSL:SASL_SSL,CONTROLLER:SSL
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
       |ssl.client.auth=required
       |listener.name.sasl_ssl.ssl.client.auth=none
       |sasl.enabled.mechanisms=${ClientConfig.ScramMechanism}
       |listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
       |ssl.principal.mapping.rules=RULE:^CN=([^,]+)$$/$$1/,DEFAULT
       |authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
       |allow.everyone.if.no.acl.found=false
       |super.users=User:${Tls.BrokerName};User:${Identities.Operator}
       |log.dirs=${dir / "data"}
       |num.partitions=1
       |auto.create.topics.enable=false
       |offsets.topic.replication.factor=$replicas
       |offsets.topic.num.partitions=$replicas
       |transaction.state.log.replication.factor=$replicas
       |transaction.state.log.min.isr=${(replicas - 1) max 1}
       |transaction.state.log.num.partitions=$replicas
       |share.coordinator.state.topic.replication.factor=$replicas
       |share.coordinator.state.topic.num.partitions=$replicas
       |share.coordinator.state.topic.min.isr=${(replicas - 1) max 1}
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
      _ <- ports.traverse_(ctx.requirePortFree(name, _))
      cp <- ctx.artifacts.kafkaClasspath
      clusterId <- KafkaService.clusterId(ctx.layout)
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
      else Processes.run(Seq(java) ++ JvmOptions.KafkaTool ++ Seq("-cp", classpath, s"-Dlog4j2.configurationFile=${dir / "log4j2.properties"}",
          "kafka.tools.StorageTool",
          "format", "-t", clusterId, "-c", (dir / "server.properties").toString), dir).void
      pid <- Processes.spawnDetached(
        Seq(java) ++ JvmOptions.Kafka ++ ctx.kafkaJavaOptions ++ Seq(
          s"-Dlog4j2.configurationFile=${dir / "log4j2.properties"}", "-cp", classpath, Marker, (dir / "server.properties").toString),
        dir, log)
      _ <- process.record(pid)
      _ <- ctx.awaitReady(name, 90.seconds, process.isAlive(pid))(ready)
    } yield ()
}

private[sandbox] object KafkaService {
  def name(node: Int): String = s"kafka-$node"

  /** Made once per sandbox: every node's storage is formatted with it, so they form one cluster. */
  def clusterId(layout: SandboxLayout): IO[String] = IO.blocking {
    val f = layout.kafkaClusterId
    if (os.exists(f)) os.read(f).trim
    else { val id = org.apache.kafka.common.Uuid.randomUuid().toString; os.write.over(f, id); id }
  }
}

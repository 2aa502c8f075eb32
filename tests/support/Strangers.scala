package bankops.support

import cats.effect.IO
import org.apache.kafka.clients.admin.{
  Admin, ScramCredentialInfo, ScramMechanism, UserScramCredentialAlteration, UserScramCredentialDeletion, UserScramCredentialUpsertion
}

import org.apache.kafka.common.acl.{AccessControlEntry, AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation, AclPermissionType}
import org.apache.kafka.common.resource.{PatternType, ResourcePattern, ResourcePatternFilter, ResourceType}

import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import cats.syntax.all._

import bankops.jobs.sandbox.{ClientConfig, SandboxSecrets, Tls}
import bankops.services.kafka.KafkaClients

/** Identities the tests' sandbox knows nothing of: a certificate its CA signs for a name no ACL mentions (made as the
  * sandbox makes its own, in this JVM: with keytool, five JVMs a name), and a SCRAM user created through the operator's admin client. Each is a client
  * properties file in a temporary directory, beside the sandbox's own identities' trust settings.
  */
object Strangers {
  private val layout = SandboxFixture.layout

  private def secrets: IO[SandboxSecrets] = SandboxSecrets.load(layout).map(_.getOrElse(sys.error(s"no sandbox secrets in ${layout.dir}")))

  private def render(props: Map[String, String]): String = props.toList.sorted.map { case (k, v) => s"$k=$v" }.mkString("", "\n", "\n")

  /** A client certificate `CN=<name>` signed by the sandbox's CA; its properties file. */
  def certificate(name: String): IO[os.Path] = SandboxFixture.connection >> secrets.flatMap { s =>
    IO.blocking {
      val dir = os.temp.dir(prefix = s"bankops-$name-")
      Tls.signedIdentity(layout.tls, s.tlsPassword, name, days = 2, dir / "id.p12")
      val props = ClientConfig.properties(layout, s) ++ Map("ssl.keystore.location" -> (dir / "id.p12").toString)
      os.write(dir / s"$name.properties", render(props), perms = "rw-------")
      dir / s"$name.properties"
    }
  }

  /** A SCRAM-SHA-512 user `name` with `password`, made by the operator; the properties file to connect as it. Returns once
    * every broker takes the password: the controller commits the credential before the brokers apply it, so a client
    * that connects at once can be refused by a broker that has not caught up yet.
    */
  def scramUser(name: String, password: String): IO[os.Path] =
    SandboxFixture.settings.flatMap { settings =>
      secrets.flatMap { s =>
        val upsert = new UserScramCredentialUpsertion(name, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)
        val alterations = List[UserScramCredentialAlteration](upsert).asJava
        KafkaClients.javaAdmin(settings.kafka).use((a: Admin) => KafkaClients.await(a.alterUserScramCredentials(alterations).all())) >> IO.blocking {
          val props = ClientConfig.scramProperties(layout, s, name).map {
            case ("sasl.jaas.config", _) =>
              "sasl.jaas.config" -> s"""org.apache.kafka.common.security.scram.ScramLoginModule required username="$name" password="$password";"""
            case other => other
          }
          os.temp(render(props), prefix = s"bankops-$name-", suffix = ".properties", perms = "rw-------")
        }.flatTap(config =>
          SandboxFixture.sandboxSettings.nodes.traverse_(n => acceptedAt(config, s"localhost:${SandboxFixture.sandboxSettings.scramPort(n)}")))
      }
    }

  /** Waits, up to 30 s, until the broker at `address` authenticates the client `config` describes. */
  private def acceptedAt(config: os.Path, address: String): IO[Unit] = {
    val props = new java.util.Properties()
    val attempt = IO.blocking {
      scala.util.Using.resource(java.nio.file.Files.newInputStream(config.toNIO))(props.load)
      props.put("bootstrap.servers", address)
      props.put("default.api.timeout.ms", "10000")
      props.put("request.timeout.ms", "10000")
      scala.util.Using.resource(Admin.create(props))(_.describeCluster().clusterId().get())
    }.void.attempt
    def loop(deadline: Long): IO[Unit] = attempt.flatMap {
      case Right(_) => IO.unit
      case Left(e)
          if System.nanoTime() < deadline &&
            bankops.base.Failures.causedBy[org.apache.kafka.common.errors.SaslAuthenticationException](e) =>
        IO.sleep(200.millis) >> loop(deadline)
      case Left(e) => IO.raiseError(new RuntimeException(s"SCRAM user in $config not accepted at $address", e))
    }
    loop(System.nanoTime() + 30.seconds.toNanos)
  }

  /** Grants `User:<name>` the operations on the topics (literal names), as the operator. */
  def grant(name: String, topics: List[String], operations: AclOperation*): IO[Unit] =
    SandboxFixture.settings.flatMap { settings =>
      val bindings =
        for { t <- topics; op <- operations.toList } yield new AclBinding(new ResourcePattern(ResourceType.TOPIC, t, PatternType.LITERAL),
          new AccessControlEntry(s"User:$name", "*", op, AclPermissionType.ALLOW))
      KafkaClients.javaAdmin(settings.kafka).use(a => KafkaClients.await(a.createAcls(bindings.asJava).all())).void
    }

  /** Grants `User:<name>` the operations on the cluster resource, as the operator. */
  def grantCluster(name: String, operations: AclOperation*): IO[Unit] =
    SandboxFixture.settings.flatMap { settings =>
      val bindings = operations.toList.map(op =>
        new AclBinding(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
          new AccessControlEntry(s"User:$name", "*", op, AclPermissionType.ALLOW)))
      KafkaClients.javaAdmin(settings.kafka).use(a => KafkaClients.await(a.createAcls(bindings.asJava).all())).void
    }

  /** Removes what a test granted `User:<name>` and its SCRAM user, so later suites on the same sandbox see no drift from it. */
  def revoke(name: String): IO[Unit] =
    SandboxFixture.settings.flatMap { settings =>
      val filter = new AclBindingFilter(ResourcePatternFilter.ANY,
        new AccessControlEntryFilter(s"User:$name", null, AclOperation.ANY, AclPermissionType.ANY))
      val user = List[UserScramCredentialAlteration](new UserScramCredentialDeletion(name, ScramMechanism.SCRAM_SHA_512)).asJava
      KafkaClients.javaAdmin(settings.kafka).use(a =>
        KafkaClients.await(a.deleteAcls(List(filter).asJava).all()) >>
          KafkaClients.await(a.alterUserScramCredentials(user).all()).void.handleError(_ => ())) // no such user: nothing to remove
    }

  /** The SCRAM (SASL_SSL) listener of the first broker. */
  def scramBootstrap: String = s"localhost:${SandboxFixture.sandboxSettings.kafkaPort + 2}"
}

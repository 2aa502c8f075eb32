package bankops.jobs.sandbox

import cats.effect.IO
import fs2.kafka.{AdminClientSettings, KafkaAdminClient}

import scala.concurrent.duration._

import bankops.support.{IOSuite, Repo, SandboxFixture, TestShell}
import bankops.support.OnSandbox

/** A second sandbox, on its own ports: one broker (which requires client certificates, as every sandbox broker does)
  * and a registry speaking HTTPS.
  */
class MtlsSuite extends IOSuite with OnSandbox {
  // Shared: its sandbox is a second one, on ports and in a directory of its own.
  override val munitIOTimeout: Duration = 5.minutes

  private val dir = Repo.root / ".bankops" / "test-mtls"
  private val settings = SandboxFixture.beside(1)
  private val ports = SandboxFixture.portFlags(settings)

  private def list(props: Map[String, String]): IO[Either[Throwable, Set[String]]] =
    KafkaAdminClient.resource[IO](AdminClientSettings(s"localhost:${settings.kafkaPort}").withProperties(props)
        .withProperty("default.api.timeout.ms", "8000").withRequestTimeout(5.seconds)).use(_.listTopics.names).attempt

  /** A PKCS12 truststore holding only a CA of its own, made with the JDK's keytool. */
  private def otherTruststore(): os.Path = {
    val d = os.temp.dir()
    os.proc("keytool", "-genkeypair", "-alias", "other", "-keyalg", "RSA", "-dname", "CN=other-ca", "-keystore", d / "other.p12",
      "-storetype", "PKCS12", "-storepass", "changeit", "-noprompt").call(stderr = os.Pipe)
    os.proc("keytool", "-exportcert", "-alias", "other", "-keystore", d / "other.p12", "-storepass", "changeit", "-rfc", "-file",
      d / "other.pem").call(stderr = os.Pipe)
    os.proc("keytool", "-importcert", "-alias", "ca", "-file", d / "other.pem", "-keystore", d / "trust.p12", "-storetype", "PKCS12",
      "-storepass", "changeit", "-noprompt").call(stderr = os.Pipe)
    d / "trust.p12"
  }

  test(
    "--brokers 1 takes the topology's single-broker environment; the broker refuses a client without a keystore and serves one " +
      "with it; --registry-tls serves HTTPS trusted by the same profile; down leaves no process") {
    val args = List("sandbox", "up", "--brokers", "1", "--registry-tls", "--sandbox-dir", dir.toString) ++ ports
    val run = for {
      up <- TestShell.run(args, home = bankops.support.Repo.root)
      _ = assertEquals(up.code, 0, up.err)
      _ = assert(up.err.contains("applied schemas/topology.json (environment single-broker)"), up.err)
      // `up` again with --brokers left out keeps the running cluster's shape (it used to ask for the default three).
      again <- TestShell.run(args.filterNot(Set("--brokers", "1")), home = bankops.support.Repo.root)
      _ = assertEquals(again.code, 0, again.err)
      _ = assert(again.err.contains("kafka-1   reused"), again.err)
      layout = SandboxLayout(dir)
      props = ClientConfig.properties(layout, SandboxSecrets.load(layout).unsafeRunSync().get)
      withCert <- list(props)
      withoutCert <- list(props.filterNot(_._1.startsWith("ssl.keystore")).filterNot(_._1 == "ssl.key.password"))
      doctor <- TestShell.run(List("doctor", "-o", "json", "--sandbox-dir", dir.toString))
      // The registry's own schema.registry.ssl.* keys win over the Kafka profile: a truststore of another CA there fails
      // the registry's handshake, though the Kafka truststore beside it would pass.
      otherCa = otherTruststore()
      registryKeys = os.temp((props ++ Map("schema.registry.ssl.truststore.location" -> otherCa.toString,
          "schema.registry.ssl.truststore.password" -> "changeit",
          "schema.registry.ssl.truststore.type" -> "PKCS12")).map { case (k, v) => s"$k=$v" }.mkString("\n"), suffix = ".properties")
      ownTrust <- TestShell.run(List("doctor", "-o", "json", "--sandbox-dir", dir.toString, "--command-config", registryKeys.toString))
      pids = List("kafka-1", "registry", "handler").flatMap(s => scala.util.Try(os.read(layout.pidFile(s)).trim.toLong).toOption)
      down <- TestShell.run(List("sandbox", "down", "--wipe", "--sandbox-dir", dir.toString))
    } yield {
      assert(withCert.isRight, s"client with keystore refused: $withCert")
      assert(withoutCert.isLeft, "client without keystore was served")
      assertEquals(doctor.code, 0, doctor.out)
      assert(
        doctor.outLines.exists(l => l.contains(s"\"registry tls localhost:${settings.registryPort}\"") && l.contains("\"passed\":true")), doctor.out)
      assert(doctor.out.contains(s"https://localhost:${settings.registryPort}/apis/ccompat/v7"), doctor.out)
      assertEquals(ownTrust.code, 3, ownTrust.out)
      assert(ownTrust.outLines.exists(l => l.contains(s"\"registry tls localhost:${settings.registryPort}\"") && l.contains("\"passed\":false")),
        ownTrust.out)
      assert(ownTrust.outLines.exists(l => l.contains("\"kafka metadata\"") && l.contains("\"passed\":true")), ownTrust.out)
      assertEquals(down.code, 0)
      assertEquals(pids.size, 3)
      pids.foreach(p => assert(!os.exists(os.Path(s"/proc/$p")), s"process $p still running after down"))
      assert(!os.exists(dir), "down --wipe left data behind")
    }
    run.guarantee(TestShell.run(List("sandbox", "down", "--wipe", "--sandbox-dir", dir.toString)).void)
  }
}

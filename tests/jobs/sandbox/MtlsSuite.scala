package bankops.jobs.sandbox

import cats.effect.IO
import fs2.kafka.{AdminClientSettings, KafkaAdminClient}

import scala.concurrent.duration._

import bankops.support.{Repo, TestShell}

/** A second sandbox, on its own ports, whose broker requires client certificates and whose registry speaks HTTPS. */
class MtlsSuite extends munit.CatsEffectSuite {
  override val munitIOTimeout: Duration = 5.minutes

  private val dir = Repo.root / ".bankops" / "test-mtls"
  private val ports = List("--kafka-port", "29192", "--controller-port", "29193", "--registry-port", "28181", "--db-port", "25532")

  private def list(props: Map[String, String]): IO[Either[Throwable, Set[String]]] =
    KafkaAdminClient.resource[IO](AdminClientSettings("localhost:29192").withProperties(props)
      .withProperty("default.api.timeout.ms", "8000").withRequestTimeout(5.seconds)).use(_.listTopics.names).attempt

  test("--mtls refuses a client without a keystore and serves one with it; --registry-tls serves HTTPS trusted by the same profile; down leaves no process") {
    val args = List("sandbox", "up", "--mtls", "--registry-tls", "--sandbox-dir", dir.toString) ++ ports
    val run = for {
      // From the checkout: up applies its schemas/topology.json.
      up <- TestShell.run(args, home = Repo.root)
      _ = assertEquals(up.code, 0, up.err)
      layout = SandboxLayout(dir)
      props = ClientConfig.properties(layout, SandboxSecrets.load(layout).unsafeRunSync().get)
      withCert <- list(props)
      withoutCert <- list(props.filterNot(_._1.startsWith("ssl.keystore")).filterNot(_._1 == "ssl.key.password"))
      doctor <- TestShell.run(List("doctor", "-o", "json", "--sandbox-dir", dir.toString))
      pids = List("kafka", "registry", "handler").flatMap(s => scala.util.Try(os.read(layout.pidFile(s)).trim.toLong).toOption)
      down <- TestShell.run(List("sandbox", "down", "--wipe", "--sandbox-dir", dir.toString))
    } yield {
      assert(withCert.isRight, s"client with keystore refused: $withCert")
      assert(withoutCert.isLeft, "client without keystore was served")
      assertEquals(doctor.code, 0, doctor.out)
      assert(doctor.outLines.exists(l => l.contains("\"registry tls localhost:28181\"") && l.contains("\"passed\":true")), doctor.out)
      assert(doctor.out.contains("https://localhost:28181/apis/ccompat/v7"), doctor.out)
      assertEquals(down.code, 0)
      assertEquals(pids.size, 3)
      pids.foreach(p => assert(!os.exists(os.Path(s"/proc/$p")), s"process $p still running after down"))
      assert(!os.exists(dir), "down --wipe left data behind")
    }
    run.guarantee(TestShell.run(List("sandbox", "down", "--wipe", "--sandbox-dir", dir.toString)).void)
  }
}

package bankops.sandbox

import cats.effect.IO
import fs2.kafka.{AdminClientSettings, KafkaAdminClient}

import scala.concurrent.duration._

import bankops.support.{Repo, TestShell}

/** A second sandbox, on its own ports, whose broker requires client certificates. */
class MtlsSuite extends munit.CatsEffectSuite {
  override val munitIOTimeout: Duration = 5.minutes

  private val dir = Repo.root / ".bankops" / "test-mtls"
  private val ports = List("--kafka-port", "29192", "--controller-port", "29193", "--registry-port", "28181", "--db-port", "25532")

  private def list(props: Map[String, String]): IO[Either[Throwable, Set[String]]] =
    KafkaAdminClient.resource[IO](AdminClientSettings("localhost:29192").withProperties(props)
      .withProperty("default.api.timeout.ms", "8000").withRequestTimeout(5.seconds)).use(_.listTopics.names).attempt

  test("with --mtls a client without a keystore is refused, one with the client keystore is served; down leaves no process") {
    val args = List("sandbox", "up", "--mtls", "--sandbox-dir", dir.toString) ++ ports
    val run = for {
      up <- TestShell.run(args)
      _ = assertEquals(up.code, 0, up.err)
      layout = SandboxLayout(dir)
      props = ClientConfig.properties(layout, SandboxSecrets.load(layout).unsafeRunSync().get)
      withCert <- list(props)
      withoutCert <- list(props.filterNot(_._1.startsWith("ssl.keystore")).filterNot(_._1 == "ssl.key.password"))
      pids = List("kafka", "registry").flatMap(s => scala.util.Try(os.read(layout.pidFile(s)).trim.toLong).toOption)
      down <- TestShell.run(List("sandbox", "down", "--wipe", "--sandbox-dir", dir.toString))
    } yield {
      assert(withCert.isRight, s"client with keystore refused: $withCert")
      assert(withoutCert.isLeft, "client without keystore was served")
      assertEquals(down.code, 0)
      assertEquals(pids.size, 2)
      pids.foreach(p => assert(!os.exists(os.Path(s"/proc/$p")), s"process $p still running after down"))
      assert(!os.exists(dir), "down --wipe left data behind")
    }
    run.guarantee(TestShell.run(List("sandbox", "down", "--wipe", "--sandbox-dir", dir.toString)).void)
  }
}

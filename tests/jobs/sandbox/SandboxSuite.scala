package bankops.jobs.sandbox

import cats.effect.IO
import org.apache.kafka.common.errors.SslAuthenticationException

import java.sql.DriverManager
import javax.net.ssl.SSLHandshakeException
import scala.concurrent.duration._

import bankops.services.kafka.KafkaClients
import bankops.services.config.SandboxConnection
import bankops.services.registry.RegistryClient
import bankops.support.{IOSuite, RefusedClient, SandboxFixture, TestShell}
import bankops.support.OnSandbox

class SandboxSuite extends IOSuite with OnSandbox {
  // Shared: it reads the sandbox's health, its own bank and the registry's global level, which only tests running alone
  // change; its `up` runs while other suites' jobs read the connection files, as an operator's would.
  override val munitIOTimeout: Duration = 5.minutes

  test("an admin client over SSL, configured as every job is, lists topics") {
    SandboxFixture.settings.flatMap { s =>
      assertEquals(s.kafka.properties("security.protocol"), "SSL")
      KafkaClients.admin(s.kafka).use(_.listTopics.names).map(names => assert(!names.exists(_.isEmpty)))
    }
  }

  test("a client without the truststore is refused in the TLS handshake (the CA is not trusted), well before its timeout") {
    RefusedClient.refusal(Map("security.protocol" -> "SSL"))(_.listTopics.names).map { r =>
      assert(r.causes.exists(_.isInstanceOf[SslAuthenticationException]), r.describe)
      assert(r.causes.exists(e => e.isInstanceOf[SSLHandshakeException] && e.getMessage.contains("PKIX path building failed")), r.describe)
      assert(r.took < 6.seconds, s"${r.took}: ${r.describe}")
    }
  }

  test("a plaintext client cannot talk to the broker: it never gets a node to ask (where an SSL client just listed topics)") {
    RefusedClient.refusal(Map("security.protocol" -> "PLAINTEXT"))(_.listTopics.names).map { r =>
      assert(r.noNode, r.describe)
      assert(r.took < 20.seconds, r.took.toString)
    }
  }

  test("the registry registers a schema and returns it by id through the Confluent API") {
    val schema = """{"type":"record","name":"SandboxProbe","namespace":"bankops.test","fields":[{"name":"n","type":"long"}]}"""
    SandboxFixture.settings.flatMap(RegistryClient.resource(_).use { registry =>
      for {
        id <- registry.register("sandbox-probe-bankops.test.SandboxProbe", schema)
        again <- registry.register("sandbox-probe-bankops.test.SandboxProbe", schema)
        back <- registry.schemaById(id)
        subjects <- registry.subjects
        level <- registry.globalCompatibility
      } yield {
        assertEquals(again, id)
        assert(back.schema.contains("SandboxProbe"), back)
        assert(subjects.contains("sandbox-probe-bankops.test.SandboxProbe"), subjects)
        assertEquals(level, "BACKWARD")
      }
    })
  }

  test("balancedb holds the seeded account (its amount moves: the sandbox's handler runs)") {
    SandboxFixture.connection.flatMap { c =>
      IO.blocking {
        val conn = DriverManager.getConnection(c.dbUrl, c.dbUser, c.dbPassword)
        try {
          val rs = conn.createStatement().executeQuery("SELECT balance_id, token, amount, type, lmt FROM balance WHERE iban = 'NL66OPEN0000000000'")
          assert(rs.next(), "no seeded row")
          assertEquals((rs.getInt(1), rs.getString(2), rs.getString(4), rs.getLong(5)), (0, "00000000000000000000", "AUTO", -50000L))
          assert(rs.getLong(3) > 0L, rs.getLong(3).toString)
        } finally conn.close()
      }
    }
  }

  test("sandbox env prints export lines other clients use; status exits 0 with every service up") {
    SandboxFixture.connection >>
      TestShell.run(List("sandbox", "env", "--sandbox-dir", SandboxFixture.layout.dir.toString)).flatMap { env =>
        assertEquals(env.code, 0, env.err)
        assert(env.outLines.exists(_.startsWith("export KAFKA_BROKERS='localhost:")), env.out)
        assert(env.outLines.exists(_.startsWith("export KAFKA_SSL_CA_LOCATION=")), env.out)
        // 10 s, the default, was once too short for the lag on a machine busy with the other test JVM.
        TestShell.run(List("sandbox", "status", "-o", "json", "--timeout", "60s", "--sandbox-dir", SandboxFixture.layout.dir.toString)).map { st =>
          assertEquals(st.code, 0, st.out)
          val services = st.outLines.flatMap(l => io.circe.parser.parse(l).toOption.flatMap(_.hcursor.get[String]("service").toOption))
          assertEquals(services, List("postgres", "kafka-1", "kafka-2", "kafka-3", "registry", "handler"))
          assert(
            st.outLines.exists(l => l.contains("\"service\":\"handler\",\"up\":true") && l.contains("group bankops-command-handler, lag")), st.out)
        }
      }
  }

  test("sandbox env --as NAME [--scram]: each identity's settings reach the cluster as that identity; an unknown one is exit 2") {
    val dir = SandboxFixture.layout.dir.toString
    def exports(args: String*): IO[Map[String, String]] =
      TestShell.run(List("sandbox", "env", "--sandbox-dir", dir) ++ args).map { r =>
        assertEquals(r.code, 0, r.err)
        r.outLines.map(_.stripPrefix("export ")).map(l => l.takeWhile(_ != '=') -> l.dropWhile(_ != '=').drop(2).dropRight(1)).toMap
      }
    def read(env: Map[String, String]) = TestShell.run(List("inspect", "--topic", "heartbeat", "--limit", "1", "--timeout", "30s", "-o", "json"),
      env = env - "DB_PASSWORD")
    for {
      _ <- SandboxFixture.connection
      byCert <- exports("--as", "reader")
      byScram <- exports("--as", "reader", "--scram")
      unknown <- TestShell.run(List("sandbox", "env", "--sandbox-dir", dir, "--as", "nobody"))
      certRead <- read(byCert)
      scramRead <- read(byScram)
    } yield {
      assert(byCert("BANKOPS_COMMAND_CONFIG").endsWith("identities/reader.properties"), byCert.toString)
      assert(os.read(os.Path(byCert("KAFKA_SSL_CERTIFICATE_LOCATION"))).startsWith("-----BEGIN CERTIFICATE-----"))
      assertEquals(byScram("KAFKA_SASL_USERNAME"), "reader")
      assert(byScram("KAFKA_BROKERS").split(',').forall(_.matches("localhost:\\d+")), byScram("KAFKA_BROKERS"))
      assertNotEquals(byScram("KAFKA_BROKERS"), byCert("KAFKA_BROKERS"))
      assertEquals(certRead.code, 0, certRead.err)
      assertEquals(scramRead.code, 0, scramRead.err)
      assertEquals((unknown.code, unknown.err.contains("no identity 'nobody'")), (2, true), unknown.err)
    }
  }

  test("up on the running sandbox reuses every service, and a job reading its connection meanwhile always finds it whole") {
    val layout = SandboxFixture.layout
    val files = layout.clientProperties :: Identities.all.flatMap(id => List(false, true).map(ClientConfig.file(layout, id, _)))
    // What a job starting now would find wrong: no connection (`up` not done), or a client file missing or empty.
    val problems: IO[List[String]] = SandboxConnection.read(layout.dir).flatMap(c =>
      IO.blocking {
        c.fold(List("no connection"))(_ => Nil) ++ files.filterNot(f => os.exists(f) && os.size(f) > 0).map(f => s"$f missing or empty")
      })
    // Read until `up` ends: how many times, and every problem seen.
    def readUntil(done: IO[Boolean], reads: Int, seen: List[String]): IO[(Int, List[String])] =
      done.flatMap(d => if (d) IO.pure((reads, seen)) else problems.flatMap(p => readUntil(done, reads + 1, seen ++ p)))
    for {
      _ <- SandboxFixture.connection
      upDone <- cats.effect.Ref[IO].of(false)
      reader <- readUntil(upDone.get, 0, Nil).start
      // `up` registers the context `sandbox`: in a config directory of the test's own.
      up <- TestShell.run(List("sandbox", "up"), SandboxFixture.env + ("XDG_CONFIG_HOME" -> os.temp.dir().toString), bankops.support.Repo.root)
        .guarantee(upDone.set(true))
      read <- reader.joinWithNever
    } yield {
      assertEquals(up.code, 0, up.err)
      val outcomes =
        up.err.linesIterator.collect { case l if l.matches("(postgres|kafka-\\d|registry|handler) .*") => l.split("\\s+")(1).stripSuffix(":") }.toList
      assertEquals(outcomes, List.fill(6)("reused"), up.err)
      val (reads, seen) = read
      // The reader ran through `up` (its provisioning alone takes seconds), not once before it.
      assert(reads >= 20, s"only $reads reads while up ran")
      assertEquals(seen.distinct, Nil, s"$reads reads")
    }
  }

  test("config show resolves the running sandbox and masks its passwords") {
    SandboxFixture.connection.flatMap { c =>
      TestShell.run(List("config", "show", "-o", "json", "--sandbox-dir", SandboxFixture.layout.dir.toString)).map { r =>
        assert(r.outLines.contains(s"""{"setting":"kafka.bootstrap.servers","value":"${c.bootstrapServers}","source":"sandbox"}"""), r.out)
        assert(!r.out.contains(c.dbPassword))
        assert(r.out.contains("\"****\""))
      }
    }
  }
}

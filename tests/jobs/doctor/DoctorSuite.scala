package bankops.jobs.doctor

import scala.concurrent.duration._

import bankops.support.{IOSuite, SandboxFixture, TestShell}
import bankops.support.OnSandbox

class DoctorSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes
  private def dirArgs = List("--sandbox-dir", SandboxFixture.layout.dir.toString)

  /** The registry's last requests with their response times: a registry step that got no answer in time (once in a
    * fresh clone's run, CI50f) is then either a request the registry took long over or one it never saw.
    */
  private def registrySaid: String = SandboxFixture.logSaid("registry", 8)(_.contains("access method="))

  // Alone: doctor must find the whole sandbox healthy (no prepared transaction another test holds). The other two
  // assert only the steps that fail and those before them.
  test("against the sandbox every step passes: exit 0, one line per check".tag(OnSandbox.Alone)) {
    SandboxFixture.connection >> TestShell.run(List("doctor", "-o", "json") ++ dirArgs).map { r =>
      assertEquals(r.code, 0, r.out + registrySaid)
      val names = r.outLines.map(l => io.circe.parser.parse(l).toOption.get.hcursor.get[String]("check").toOption.get)
      assert(names.exists(_.startsWith("kafka tls")), names)
      assert(names.contains("kafka metadata"), names)
      assert(names.exists(_.startsWith("postgres login")), names)
      assert(!r.out.contains("\"passed\":false"), r.out)
    }
  }

  test("without the CA the TLS step fails and names trust; exit 3") {
    SandboxFixture.connection.flatMap { c =>
      val props = os.temp("security.protocol=SSL\n", suffix = ".properties")
      TestShell.run(List("doctor", "-o", "json", "--timeout", "5", "--command-config", props.toString, "--bootstrap-server", c.bootstrapServers) ++
        dirArgs).map { r =>
        assertEquals(r.code, 3)
        val tls = r.outLines.find(_.contains("\"kafka tls")).getOrElse(fail(r.out))
        assert(tls.contains("\"passed\":false") && tls.contains("TLS failure"), tls)
        assert(r.outLines.exists(l => l.contains("\"kafka tcp") && l.contains("\"passed\":true")), r.out)
      }
    }
  }

  test("a closed port fails at the TCP step; exit 3 within the timeout") {
    TestShell.run(List("doctor", "-o", "json", "--timeout", "3", "--bootstrap-server", "localhost:1") ++ dirArgs).map { r =>
      assertEquals(r.code, 3)
      assert(r.outLines.exists(l => l.contains("\"kafka tcp localhost:1\"") && l.contains("\"passed\":false")), r.out)
    }
  }
}

package bankops.services.registry

import cats.effect.{IO, Resource}
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.duration._

import bankops.base.Failure
import bankops.services.config.{ConnectionFlags, ConnectionSettings}
import bankops.support.{HttpStub, SilentListener}

/** The registry client against servers that are not a registry: a web server's HTML 404 and 200, a port that never
  * answers; and what it sends for credentials given in the URL.
  */
class RegistryHttpSuite extends munit.CatsEffectSuite {

  private def server(status: Int, body: String, seen: AtomicReference[String] = new AtomicReference("")): Resource[IO, Int] =
    HttpStub.resource(status, body, seen)

  private def client(url: String, timeout: FiniteDuration = 5.seconds): Resource[IO, RegistryClient] =
    RegistryClient.resource(ConnectionSettings.resolve(ConnectionFlags(registryUrl = Some(url)), Map.empty, None), timeout)

  private def failure(io: IO[Any]): IO[Failure] = io.attempt.map {
    case Left(f: Failure) => f
    case other => fail(s"expected a Failure, got $other")
  }

  test("an HTML 404 is no registry: exit 3 naming the address and the path, the body never shown") {
    server(404, "<html><body>Not Found</body></html>").use(port =>
      failure(client(s"http://127.0.0.1:$port").use(_.subjects)).map { f =>
        assertEquals((f.exitCode, f.message), (3, s"no Confluent-compatible registry at http://127.0.0.1:$port (404 on /subjects)"))
      })
  }

  test("a JSON 404 without Confluent's error_code (Apicurio's own root, the API path missing) is no registry either") {
    server(404, """{"message":"RESTEASY003210: Could not find resource for full path","error_code":null}""").use(port =>
      failure(client(s"http://127.0.0.1:$port").use(_.schemaById(3))).map { f =>
        assertEquals((f.exitCode, f.message), (3, s"no Confluent-compatible registry at http://127.0.0.1:$port (404 on /schemas/ids/3)"))
      })
  }

  test("an HTML 200 is no registry either; a schema looked up by id there is not 'unknown to the registry'") {
    server(200, "<html>welcome</html>").use(port =>
      failure(client(s"http://127.0.0.1:$port").use(_.schemaById(4))).map { f =>
        assertEquals((f.exitCode, f.message),
          (3, s"no Confluent-compatible registry at http://127.0.0.1:$port (the answer to /schemas/ids/4 is not JSON)"))
      })
  }

  test("a registry that accepts and never answers: exit 3 within the timeout plus a second, retries included") {
    SilentListener.resource.use(port =>
      failure(client(s"http://127.0.0.1:$port", 3.seconds).use(_.subjects)).timed.map { case (took, f) =>
        assertEquals((f.exitCode, f.message), (3, s"schema registry at http://127.0.0.1:$port did not answer within 3 s"))
        assert(took < 4.seconds, took.toString)
      })
  }

  test("credentials in the URL are sent as basic auth, never shown") {
    val seen = new AtomicReference("")
    server(404, """{"error_code":40401,"message":"Subject not found"}""", seen).use { port =>
      client(s"http://alice:s3cret@127.0.0.1:$port").use(c => c.version("x").map(v => (c.describe, v))).map { case (shown, v) =>
        assertEquals(v, None)
        assertEquals(seen.get, "Basic " + java.util.Base64.getEncoder.encodeToString("alice:s3cret".getBytes("UTF-8")))
        assertEquals(shown, s"http://127.0.0.1:$port")
      }
    }
  }
}

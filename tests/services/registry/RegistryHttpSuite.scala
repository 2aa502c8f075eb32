package bankops.services.registry

import cats.effect.{IO, Resource}
import cats.syntax.all._
import java.util.concurrent.atomic.{AtomicInteger, AtomicReference}
import scala.concurrent.duration._

import bankops.base.Failures
import bankops.services.config.{ConnectionFlags, ConnectionSettings}
import bankops.support.{HttpStub, IOSuite, SilentListener, StallingHttp}

/** The registry client against servers that are not a registry: a web server's HTML 404 and 200, a port that never
  * answers; and what it sends for credentials given in the URL.
  */
class RegistryHttpSuite extends IOSuite {
  import RegistryHttpSuite.Reported

  private def server(status: Int, body: String, seen: AtomicReference[String] = new AtomicReference(""),
                     asked: AtomicInteger = new AtomicInteger): Resource[IO, Int] =
    HttpStub.resource(status, body, seen, asked)

  private def client(url: String, timeout: FiniteDuration = 5.seconds): Resource[IO, RegistryClient] =
    RegistryClient.resource(ConnectionSettings.resolve(ConnectionFlags(registryUrl = Some(url)), Map.empty, None), timeout)

  private def failure(io: IO[Any]): IO[Reported] = io.attempt.map {
    case Left(e) => Failures.classify(e) match { case (message, code) => Reported(code, message) }
    case Right(v) => fail(s"expected an error, got $v")
  }

  test("a closed client leaves no HTTP selector thread running: the JVM's exit waits up to 300 ms for one in epoll") {
    for {
      // This client's own thread: other suites in this JVM open clients of their own meanwhile.
      during <- server(200, "[]").use(port => client(s"http://127.0.0.1:$port").use(c => c.subjects >> IO(c.selector)))
      // Interrupted on close: gone within moments, never seconds.
      after <- (IO.sleep(20.millis) >> IO(during.exists(_.isAlive))).iterateUntil(!_).timeout(5.seconds).attempt
    } yield {
      assert(during.nonEmpty, "no selector thread while the client was open")
      assert(after.isRight, s"still running after close: $during")
    }
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

  test("a JSON 200 that is not the answer asked for: exit 3 naming the request and what came back, asked once (never read as drift)") {
    val asked = new AtomicInteger
    server(200, "{\"unexpected\": true}", asked = asked).use { port =>
      val registry = s"http://127.0.0.1:$port"
      client(registry).use(c => (failure(c.subjects), failure(c.subjectCompatibility("s")), failure(c.schemaById(7))).tupled).map {
        case (subjects, level, schema) =>
          assertEquals(subjects,
            Reported(3, s"schema registry at $registry answered the list of subjects with no list of subjects: {\"unexpected\":true}"))
          assertEquals(level,
            Reported(3, s"schema registry at $registry answered the compatibility level of s with no compatibility level: {\"unexpected\":true}"))
          assertEquals(schema, Reported(3, s"schema registry at $registry answered schema id 7 with no schema: {\"unexpected\":true}"))
          assertEquals(asked.get, 3)
      }
    }
  }

  test("retries by kind: refused (401) and not found (404) are asked once; broken (503) is asked again, then exit 3") {
    def run(status: Int) = {
      val asked = new AtomicInteger
      server(status, s"""{"error_code": ${status}01, "message": "m"}""", asked = asked).use(port =>
        failure(client(s"http://127.0.0.1:$port").use(_.subjects)))
        .map(r => (r.exitCode, asked.get))
    }
    (run(401), run(404), run(503)).tupled.map { case (refused, missing, broken) =>
      assertEquals(refused, (3, 1))
      assertEquals(missing, (1, 1))
      assertEquals(broken, (3, 4))
    }
  }

  /** A 3 s timeout kept, with a margin for a busy machine: one more try after it would take 6 s. */
  private val Deadline = 5.seconds

  test("a registry that accepts and never answers: exit 3 within the timeout and a margin, retries included") {
    SilentListener.resource.use(port =>
      failure(client(s"http://127.0.0.1:$port", 3.seconds).use(_.subjects)).timed.map { case (took, f) =>
        assertEquals((f.exitCode, f.message), (3, s"schema registry at http://127.0.0.1:$port did not answer within 3 s"))
        assert(took < Deadline, took.toString)
      })
  }

  test("an answer whose body stalls after its headers is asked again: the second, whole answer is read") {
    val asked = new AtomicInteger
    StallingHttp.resource(stalls = 1, """["a", "b"]""", asked).use(port =>
      client(s"http://127.0.0.1:$port", 20.seconds).use(_.subjects).timed.map { case (took, subjects) =>
        assertEquals(subjects, List("a", "b"))
        assertEquals(asked.get, 2)
        // The stalled answer cost its 10 s, not the deadline.
        assert(took >= RegistryHttp.BodyWithin && took < RegistryHttp.BodyWithin + 5.seconds, took.toString)
      })
  }

  test("an answer whose body never completes: exit 3 within the timeout and a margin (it held a run for good once)") {
    StallingHttp.resource(stalls = Int.MaxValue, """["a"]""").use(port =>
      failure(client(s"http://127.0.0.1:$port", 3.seconds).use(_.subjects)).timed.map { case (took, f) =>
        assertEquals((f.exitCode, f.message), (3, s"schema registry at http://127.0.0.1:$port did not answer within 3 s"))
        assert(took < Deadline, took.toString)
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

object RegistryHttpSuite {
  /** How the CLI would report an error: its exit code and line. */
  final case class Reported(exitCode: Int, message: String)
}

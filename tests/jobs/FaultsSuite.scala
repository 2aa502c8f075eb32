package bankops.jobs

import cats.effect.IO

import scala.concurrent.duration._

import bankops.support.{IOSuite, Repo, SandboxFixture, SilentListener, TestShell}
import bankops.support.OnSandbox

/** Services that fail slowly: one that accepts connections and never answers. `--timeout` is a deadline for the whole
  * operation, retries included: exit 3 within the timeout and a margin, naming the address.
  */
class FaultsSuite extends IOSuite with OnSandbox {
  // Shared: each job runs in this JVM (no JVM to start under another test's load) and waits on a listener of its own.
  override val munitIOTimeout: Duration = 3.minutes

  private val sandboxEnv = SandboxFixture.env

  private def timed(args: List[String]): IO[(TestShell.Result, FiniteDuration)] =
    SandboxFixture.connection >> TestShell.run(args, sandboxEnv, Repo.root).timed.map(_.swap)

  private def hangs(name: String, args: Int => List[String], fragment: Int => String): Unit =
    // Within the timeout and a margin for a busy machine: a second try, or a wait that outlived the timeout, takes 10 s.
    test(s"$name that accepts and never answers: exit 3 within 8 s with --timeout 5, naming it") {
      SilentListener.resource.use(port =>
        timed(args(port) ++ List("--timeout", "5")).map { case (r, took) =>
          assertEquals(r.code, 3, r.err)
          assert(r.err.contains(fragment(port)), r.err)
          assert(took < 8.seconds, s"took $took")
          assertEquals(r.err.linesIterator.count(_.nonEmpty), 1, r.err)
        })
    }

  hangs("Kafka", port => List("inspect", "--topic", "heartbeat", "--bootstrap-server", s"127.0.0.1:$port"), port => s"Kafka at 127.0.0.1:$port")
  hangs("Kafka (an admin job)", port => List("topics", "plan", "--bootstrap-server", s"127.0.0.1:$port"), port => s"127.0.0.1:$port")
  hangs("The schema registry", port => List("schemas", "plan", "--registry-url", s"http://127.0.0.1:$port"),
    port => s"schema registry at http://127.0.0.1:$port did not answer within 5 s")
  hangs("PostgreSQL", port => List("balances", "validate", "--db-url", s"jdbc:postgresql://127.0.0.1:$port/balancedb"), port => s"127.0.0.1:$port")
}

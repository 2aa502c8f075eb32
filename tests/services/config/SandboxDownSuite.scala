package bankops.services.config

import cats.effect.IO

import bankops.base.Failure
import bankops.support.{IOSuite, Repo, TestShell}

/** A sandbox that is expected but offers no connection (down, or `sandbox up` restarting it) is named in one line,
  * exit 3: a job never goes to the default localhost:9092 in its place. Where no sandbox is expected, or the address is
  * given, nothing changes.
  */
class SandboxDownSuite extends IOSuite {
  private val flags = ConnectionFlags(useContexts = false)

  private def load(env: Map[String, String], f: ConnectionFlags = flags, home: os.Path = os.temp.dir(), checked: Boolean = true) =
    Connections.load(f, new TestShell(env, home).shell, checked).attempt

  private def down(dir: os.Path, hint: String = "bankops sandbox status") =
    s"the sandbox at $dir is not up, or is being restarted: $hint"

  test("a sandbox named by BANKOPS_SANDBOX_DIR or --sandbox-dir with no connection: exit 3 naming it, not localhost:9092") {
    val dir = os.temp.dir()
    for {
      byVariable <- load(Map("BANKOPS_SANDBOX_DIR" -> dir.toString))
      byFlag <- load(Map.empty, flags.copy(sandboxDir = Some(dir)))
      _ <- IO.blocking(os.write(dir / SandboxConnection.FileName, "{\"bootstrapServers\": "))
      garbled <- load(Map("BANKOPS_SANDBOX_DIR" -> dir.toString))
    } yield {
      assertEquals(byVariable.left.map(_.getMessage), Left(down(dir)))
      assert(byVariable.left.exists { case f: Failure => f.exitCode == Failure.ExitUnavailable; case _ => false }, byVariable)
      assertEquals(byFlag.left.map(_.getMessage), Left(down(dir, s"bankops sandbox status --sandbox-dir $dir")))
      assertEquals(garbled.left.map(_.getMessage), Left(down(dir)), "a connection file half-written or garbled is no connection")
    }
  }

  test("the default sandbox directory: expected once a sandbox has run there (its state file), not before") {
    val home = os.temp.dir()
    val dir = home / ".bankops" / "sandbox"
    for {
      never <- load(Map.empty, home = home)
      _ <- IO.blocking(os.write(dir / SandboxConnection.StateFileName, "{}", createFolders = true))
      ran <- load(Map.empty, home = home)
    } yield {
      assertEquals(never.map(_.kafka.bootstrapServers), Right(Sourced(ConnectionSettings.DefaultBootstrap, Source.Default)))
      assertEquals(ran.left.map(_.getMessage), Left(down(dir)))
    }
  }

  test("an address given by a variable or a flag, or a job that only reports settings, is not held up by a sandbox that is down") {
    val dir = os.temp.dir()
    val named = Map("BANKOPS_SANDBOX_DIR" -> dir.toString)
    for {
      byVariable <- load(named + ("KAFKA_BROKERS" -> "broker:9093"))
      byFlag <- load(named, flags.copy(bootstrapServer = Some("broker:9094")))
      reported <- load(named, checked = false)
    } yield {
      assertEquals(byVariable.map(_.kafka.bootstrapServers.value), Right("broker:9093"))
      assertEquals(byFlag.map(_.kafka.bootstrapServers.value), Right("broker:9094"))
      assertEquals(reported.map(_.kafka.bootstrapServers.source), Right(Source.Default))
    }
  }

  test("a job through the CLI says it in one line, exit 3") {
    val dir = os.temp.dir()
    TestShell.run(List("topics", "list"), Map("BANKOPS_SANDBOX_DIR" -> dir.toString), Repo.root).map { r =>
      assertEquals((r.code, r.err.trim), (3, s"bankops: ${down(dir)}"))
      assertEquals(r.out, "")
    }
  }

  test("an installed bankops keeps its sandbox under the data directory its launcher names (XDG), a checkout under .bankops") {
    val (home, data) = (os.temp.dir(), os.temp.dir())
    val checkout = new TestShell(Map.empty, home).shell
    assertEquals(Connections.sandboxDir(None, checkout), home / ".bankops" / "sandbox")
    assertEquals(Connections.sandboxDir(None, checkout.copy(dataDir = Some(data))), data / "sandbox")
    assertEquals(Connections.sandboxDir(None, checkout.copy(dataDir = Some(data), env = Map("BANKOPS_SANDBOX_DIR" -> "/x"))), os.Path("/x"))
  }
}

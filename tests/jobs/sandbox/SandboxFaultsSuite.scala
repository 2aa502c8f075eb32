package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._

import java.net.{InetAddress, ServerSocket}
import scala.concurrent.duration._

import bankops.support.{IOSuite, SandboxFixture, TestShell}
import bankops.support.OnSandbox

/** Bad situations that need no running services. */
class SandboxFaultsSuite extends IOSuite with OnSandbox {

  test("down with nothing running exits 0 and says so") {
    val dir = os.temp.dir()
    TestShell.run(List("sandbox", "down", "--sandbox-dir", dir.toString)).map { r =>
      assertEquals(r.code, 0)
      assert(r.err.contains("nothing was running"), r.err)
    }
  }

  test("a port already taken fails up before anything starts: exit 3 naming the port and the service") {
    val dir = os.temp.dir()
    IO.blocking(new ServerSocket(0, 1, InetAddress.getLoopbackAddress)).bracket { taken =>
      val port = taken.getLocalPort.toString
      TestShell.run(List("sandbox", "up", "--sandbox-dir", dir.toString) ++ SandboxFixture.portFlags(SandboxFixture.beside(3).copy(
          registryPort = port.toInt))).map { r =>
        assertEquals(r.code, 3, r.err)
        assert(r.err.contains(s"port $port for registry"), r.err)
        assert(!os.exists(dir / "postgres" / "data"), "postgres was started anyway")
      }
    }(s => IO.blocking(s.close()))
  }

  test("a stale pid file (the process is gone) is cleaned up by status") {
    val dir = os.temp.dir()
    os.write(dir / "secrets.json", """{"tlsPassword":"x","dbPassword":"y"}""")
    os.write.over(dir / "kafka-2" / "pid", "999999999", createFolders = true)
    TestShell.run(List("sandbox", "status", "-o", "json", "--sandbox-dir", dir.toString)).map { r =>
      assertEquals(r.code, 3)
      assert(r.out.contains("\"service\":\"kafka-2\",\"up\":false"), r.out)
      assert(!os.exists(dir / "kafka-2" / "pid"), "stale pid file left behind")
    }
  }

  test(
    "--sandbox-dir that is not the sandbox's: up into a non-empty directory, onto a file or a link is exit 2 and " +
      "writes nothing; down --wipe deletes nothing") {
    val home = os.temp.dir()
    os.write(home / "notes.txt", "mine")
    val file = home / "notes.txt"
    val link = os.temp.dir() / "link"
    os.symlink(link, home)
    def up(dir: os.Path) = TestShell.run(List("sandbox", "up", "--sandbox-dir", dir.toString) ++ SandboxFixture.portFlags(SandboxFixture.beside(3)))
    for {
      nonEmpty <- up(home)
      onFile <- up(file)
      onLink <- up(link)
      wipes <-
        List(home, file, link, os.Path("/dev/null")).traverse(d => TestShell.run(List("sandbox", "down", "--wipe", "--sandbox-dir", d.toString)))
    } yield {
      assertEquals((nonEmpty.code, nonEmpty.err.trim),
        (2, s"bankops: --sandbox-dir $home is not empty and holds no sandbox (no secrets.json); give a new or empty directory"))
      assertEquals((onFile.code, onFile.err.trim), (2, s"bankops: --sandbox-dir $file is a file, not a directory"))
      assertEquals(onLink.code, 2, onLink.err)
      assert(onLink.err.contains("is a symbolic link"), onLink.err)
      assertEquals(
        wipes.map(w => (w.code, w.err.trim)),
        List(s"$home holds no sandbox (no secrets.json)", s"$file is a file, not a directory", s"$link is a symbolic link; give the directory itself",
          "/dev/null is not a directory").map(what => (2, s"bankops: --sandbox-dir $what: nothing stopped or removed")))
      assert(os.isLink(link), "the link is kept")
      assertEquals(os.list(home).map(_.last).toList, List("notes.txt"), "nothing written or removed")
      assertEquals(os.read(file), "mine")
    }
  }

  test("logs for an unknown service is a usage error") {
    TestShell.run(List("sandbox", "logs", "zookeeper", "--sandbox-dir", os.temp.dir().toString)).map(r => assertEquals(r.code, 2, r.err))
  }

  test("restart: exit 3 where no sandbox has run, or when the service is not running; exit 2 for an unknown service") {
    val empty = os.temp.dir()
    val stopped = os.temp.dir()
    os.write(stopped / "secrets.json", """{"tlsPassword":"x","dbPassword":"y"}""")
    for {
      none <- TestShell.run(List("sandbox", "restart", "kafka-1", "--sandbox-dir", empty.toString))
      down <- TestShell.run(List("sandbox", "restart", "registry", "--sandbox-dir", stopped.toString))
      handler <- TestShell.run(List("sandbox", "restart", "handler", "--sandbox-dir", stopped.toString))
      unknown <- TestShell.run(List("sandbox", "restart", "zookeeper", "--sandbox-dir", stopped.toString))
    } yield {
      assertEquals(none.code, 3, none.err)
      assert(none.err.contains("no sandbox has run here"), none.err)
      assertEquals(down.code, 3, down.err)
      assert(down.err.contains("registry is not running"), down.err)
      assertEquals((handler.code, handler.err.trim), (3, "bankops: handler is not running, nor is Kafka: `bankops sandbox up` starts the sandbox"))
      assertEquals((unknown.code, unknown.err.trim),
        (2, "bankops: unknown service 'zookeeper' (one of postgres, kafka-1, kafka-2, kafka-3, registry, handler)"))
      assert(!os.exists(stopped / "registry" / "pid"), "the registry was started")
    }
  }

  override val munitIOTimeout: Duration = 1.minute
}

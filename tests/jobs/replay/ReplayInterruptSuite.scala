package bankops.jobs.replay

import scala.concurrent.duration._

import bankops.support.{CliProcess, IOSuite, SandboxFixture, TopologyFixture}
import bankops.support.OnSandbox

/** Ctrl-C during a replay: never reported as success, the counts are what landed, and no partial file is left. */
class ReplayInterruptSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 3.minutes

  private def count(topic: String) =
    SandboxFixture.cli("inspect", "--topic", topic, "-o", "json").map(_.outLines.size)

  test("topic to topic: exit 130, 'interrupted' with the acknowledged count, which is what the target holds, and where to resume") {
    val (src, dst) = (TopologyFixture.unique("int-src"), TopologyFixture.unique("int-dst"))
    for {
      _ <- CommandTopics(src, dst)
      seeded <- SandboxFixture.cli("heartbeat", "--kind", "commands", "--no-learn", "--commands-topic", src, "--count", "300", "--rate", "0")
      // 300 records at 20/s take 15 s: on a busy machine too, Ctrl-C lands well before the last (checked below).
      p <- CliProcess.start("replay", "--from-topic", src, "--to-topic", dst, "--rate", "20")
      _ <- p.await(60.seconds, "records on the target")(count(dst).map(_ >= 20))
      code <- p.interrupt
      landed <- count(dst)
    } yield {
      assertEquals(seeded.code, 0, seeded.err)
      val err = os.read(p.err)
      assertEquals(code, 130, err)
      val acked = """interrupted \(Ctrl-C\): (\d+) read, (\d+) acknowledged""".r.findFirstMatchIn(err).map(_.group(2).toInt)
      assertEquals(acked, Some(landed), err)
      assert(landed < 300, s"$landed of 300: the run was not interrupted")
      assert(err.contains("resume with --from offset per source partition: partition"), err)
    }
  }

  test("topic to file: exit 130, a line saying nothing was written, no file and no partial file left") {
    val src = TopologyFixture.unique("int-file")
    val file = os.temp.dir() / "records.jsonl"
    for {
      _ <- CommandTopics(src)
      _ <- SandboxFixture.cli("heartbeat", "--kind", "commands", "--no-learn", "--commands-topic", src, "--count", "200000", "--rate", "0")
      p <- CliProcess.start("replay", "--from-topic", src, "--to-file", file.toString)
      _ <- p.await(60.seconds, "the partial file")(cats.effect.IO.blocking(os.exists(bankops.base.OutputFile.partialOf(file))))
      code <- p.interrupt
    } yield {
      assertEquals(code, 130, os.read(p.err))
      assert(os.read(p.err).contains(s"interrupted (Ctrl-C): nothing written to $file"), os.read(p.err))
      assertEquals(os.list(file / os.up).toList, Nil)
    }
  }
}

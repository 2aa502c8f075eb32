package bankops.base

import cats.effect.IO

import scala.concurrent.duration._

import bankops.Jobs
import bankops.support.{BareProcess, IOSuite}

/** Ctrl-C while bankops starts, in every job: one line saying nothing was done, and exit 130 (the JVM's own handling
  * exited 130 in silence). Each process holds at a fault point (BANKOPS_START_PAUSE) once its handlers are installed,
  * so the signal lands during start-up every time.
  */
class StartInterruptSuite extends IOSuite {
  override val munitIOTimeout: Duration = 5.minutes

  private def interrupted(args: List[String], signal: String): IO[(Int, List[String])] = {
    val release = os.temp.dir() / "never"
    BareProcess.spawn(Map("BANKOPS_START_PAUSE" -> release.toString, "PATH" -> sys.env("PATH")), args).flatMap { p =>
      p.await(1.minute, "hold at start")(IO.blocking(os.read(p.err).contains("(BANKOPS_START_PAUSE)"))) >>
        IO.blocking(os.proc("kill", s"-$signal", p.process.wrapped.pid().toString).call()) >>
        p.exited(1.minute).map(code => (code, os.read.lines(p.err).toList.filterNot(_.contains("BANKOPS_START_PAUSE"))))
    }
  }

  test("SIGINT during start-up, in every job: one line, nothing done, exit 130") {
    IO.parTraverseN(2)(Jobs.all.map(_.name))(job => interrupted(List(job, "--help"), "INT").map(job -> _)).map(_.foreach {
      case (job, result) => assertEquals(result, (130, List("bankops: interrupted (SIGINT) while starting: nothing done")), job)
    })
  }

  test("SIGTERM during start-up: its own name and 143") {
    interrupted(List("inspect", "--topic", "commands"), "TERM").map(r =>
      assertEquals(r, (143, List("bankops: interrupted (SIGTERM) while starting: nothing done"))))
  }
}

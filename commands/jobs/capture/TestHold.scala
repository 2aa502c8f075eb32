package bankops.jobs.capture

import cats.effect.IO
import cats.syntax.all._

import scala.concurrent.duration._

import bankops.base.Shell

/** A test's hold (`VARIABLE=FILE`): the job waits at that point until FILE exists, saying so, so that what a test does
  * meanwhile (a signal, records written) lands at a known point of the run, not at a lucky moment.
  */
private[capture] object TestHold {
  def at(shell: Shell, variable: String, job: String): IO[Unit] = shell.env.get(variable).traverse_ { f =>
    val file = os.Path(f, os.pwd)
    shell.info(s"$job: holding until $file exists ($variable)") >>
      (IO.sleep(100.millis) >> IO.blocking(os.exists(file))).iterateUntil(identity).void
  }
}

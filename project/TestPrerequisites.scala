package bankops.build

import java.io.File
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.{TimeUnit, TimeoutException}

import scala.concurrent.duration._

/** `./bankops test` installs what the tests need besides the build (confluent-kafka for Python, zsh, fish) in a process
  * of its own while sbt compiles; build.sbt's `awaitTestPrerequisites` holds the tests until it has ended. BANKOPS_TEST_SETUP is
  * `PID:FILE`: that process, and the file it writes its exit status to as it ends.
  */
object TestPrerequisites {
  /** pip and apt-get, each bounded by the network; a set-up still running after this is stuck (a held dpkg lock, say). */
  val Bound: FiniteDuration = 15.minutes

  /** Either nothing (the set-up succeeded) or why the tests must not run. */
  def await(spec: String, waiting: String => Unit, bound: FiniteDuration = Bound): Option[String] = spec.split(":", 2) match {
    case Array(pid, path) if pid.nonEmpty && pid.length < 10 && pid.forall(_.isDigit) =>
      val status = new File(path)
      // Its status is written last: once the file is there, the set-up is over.
      if (!status.isFile) {
        val process = ProcessHandle.of(pid.toLong)
        if (process.isPresent) {
          waiting(s"waiting for the tests' set-up (confluent-kafka, zsh, fish; process $pid) to end")
          try process.get.onExit().get(bound.toMillis, TimeUnit.MILLISECONDS)
          catch { case _: TimeoutException => () }
        }
      }
      if (!status.isFile) {
        if (ProcessHandle.of(pid.toLong).isPresent) Some(s"the tests' set-up (process $pid) has not ended within $bound")
        else Some(s"the tests' set-up (process $pid) ended without writing its status to $path: it was interrupted")
      } else new String(Files.readAllBytes(status.toPath), UTF_8).trim match {
        case "0" => None
        case code => Some(s"the tests' set-up failed (exit $code; its message is above)")
      }
    case _ => Some(s"BANKOPS_TEST_SETUP must be PID:FILE, not '$spec'")
  }
}

package bankops.jobs.sandbox

import cats.effect.IO

import java.net.{InetAddress, ServerSocket}
import scala.concurrent.duration._

/** Detached service processes: started in their own session (so a Ctrl-C at the
  * shell that ran `sandbox up` does not reach them), found again by pid plus a
  * marker in their command line (so a reused pid is never mistaken for ours).
  */
private[sandbox] object Processes {

  def spawnDetached(cmd: Seq[String], cwd: os.Path, log: os.Path, env: Map[String, String] = Map.empty): IO[Long] =
    IO.blocking {
      os.makeDir.all(log / os.up)
      // destroyOnExit = false: the service must outlive this CLI.
      val p = os.proc("setsid" +: cmd).spawn(cwd = cwd, env = env, stdin = os.Pipe, stdout = os.PathAppendRedirect(log),
        stderr = os.PathAppendRedirect(log), destroyOnExit = false)
      p.stdin.close()
      p.wrapped.pid()
    }

  def alive(pid: Long, marker: String): Boolean = {
    val cmdline = os.Path(s"/proc/$pid/cmdline")
    try os.exists(cmdline) && new String(os.read.bytes(cmdline)).replace('\u0000', ' ').contains(marker)
    catch { case _: Exception => false }
  }

  /** SIGTERM, then SIGKILL after `grace`. */
  def stop(pid: Long, marker: String, grace: FiniteDuration): IO[Unit] =
    IO.blocking(ProcessHandle.of(pid).ifPresent(h => { h.destroy(); () })) >>
      gone(pid, marker, grace).flatMap(if (_) IO.unit else kill(pid, marker))

  /** SIGKILL, then up to 5 s for it to be gone. */
  def kill(pid: Long, marker: String): IO[Unit] =
    IO.blocking(ProcessHandle.of(pid).ifPresent(h => { h.destroyForcibly(); () })) >> gone(pid, marker, 5.seconds).void

  private def gone(pid: Long, marker: String, within: FiniteDuration): IO[Boolean] = {
    val deadline = within.fromNow
    def poll: IO[Boolean] = IO.blocking(alive(pid, marker)).flatMap { a =>
      if (!a) IO.pure(true) else if (deadline.isOverdue()) IO.pure(false) else IO.sleep(200.millis) >> poll
    }
    poll
  }

  def portFree(port: Int): Boolean =
    try { new ServerSocket(port, 1, InetAddress.getLoopbackAddress).close(); true }
    catch { case _: java.io.IOException => false }

  def tail(log: os.Path, lines: Int): String =
    if (!os.exists(log)) s"(no log at $log)"
    else os.read.lines(log).takeRight(lines).mkString("\n")

  /** Runs a short command; its output is returned, and on failure becomes the error. */
  def run(cmd: Seq[String], cwd: os.Path, env: Map[String, String] = Map.empty): IO[String] = IO.blocking {
    // destroyOnExit = false: `down` also runs from JVM shutdown hooks, where no new hook may be added.
    val r = os.proc(cmd).call(cwd = cwd, env = env, check = false, stdin = os.Pipe, mergeErrIntoOut = true, destroyOnExit = false)
    if (r.exitCode != 0) throw new IllegalStateException(
      s"${cmd.head} failed (exit ${r.exitCode}): ${r.out.text().trim.linesIterator.toList.takeRight(5).mkString(" | ")}")
    r.out.text()
  }
}

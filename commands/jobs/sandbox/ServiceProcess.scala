package bankops.jobs.sandbox

import cats.effect.IO

import scala.concurrent.duration.FiniteDuration

/** A JVM service the sandbox spawned: its pid file, and the marker in its
  * command line that tells our process from an unrelated one with a reused pid.
  */
private[sandbox] final case class ServiceProcess(pidFile: os.Path, marker: String) {

  /** The live pid; a stale pid file is removed. */
  def pid: IO[Option[Long]] = IO.blocking {
    if (!os.exists(pidFile)) None
    else os.read(pidFile).trim.toLongOption.filter(Processes.alive(_, marker)).orElse { os.remove(pidFile); None }
  }

  def record(pid: Long): IO[Unit] = IO.blocking(os.write.over(pidFile, pid.toString))

  def isAlive(pid: Long): IO[Boolean] = IO.blocking(Processes.alive(pid, marker))

  def stop(grace: FiniteDuration): IO[Unit] = ended(Processes.stop(_, marker, grace))

  /** SIGKILL at once: for a service whose data is thrown away. */
  def kill: IO[Unit] = ended(Processes.kill(_, marker))

  private def ended(end: Long => IO[Unit]): IO[Unit] = pid.flatMap {
    case None => IO.unit
    case Some(p) => end(p) >> IO.blocking(os.remove(pidFile, checkExists = false)).void
  }
}

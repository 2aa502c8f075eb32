package bankops.jobs.sandbox

import cats.effect.IO

import scala.concurrent.duration._

/** One process of the sandbox, as `up`, `status`, `restart`, `stop`, `start`, `down` and `logs` see it. */
private[sandbox] trait SandboxService {
  /** What the commands call it; also its log's and pid file's name. */
  def name: String

  /** Its live process, if any. */
  def pid: IO[Option[Long]]

  /** Starts it on its data and waits until it answers. */
  def start: IO[Unit]

  def stop: IO[Unit]

  /** Stops it at once, its data about to be thrown away: a JVM service is killed rather than shut down cleanly (the
    * brokers' clean shutdown ends with the quorum leader waiting 5 s for peers that have already left).
    */
  def kill: IO[Unit] = stop

  /** Succeeds when it answers its clients. */
  def ready: IO[Unit]

  /** What `up` does to a healthy service it reuses, so a newer bankops finds what it needs (a database migrated). */
  def reused: IO[Unit] = IO.unit

  def version: IO[String]

  /** Where clients reach it. */
  def address: String

  /** The ports it listens on: free before `up` starts it. */
  def ports: List[Int]

  /** The settings it depends on: `up` reuses a healthy one only when these are unchanged. */
  def startedWith(settings: SandboxSettings): Any

  /** The line `up` prints after the service's name. */
  def upLine(outcome: String): String = s"$outcome at $address"

  /** The address column of `status`; what it asks a service waits `timeout` at most. */
  def statusAddress(timeout: FiniteDuration): IO[String] = IO.pure(address)

  /** Why `restart` refuses it while it is stopped, naming the command that mends that. */
  def notRunning: IO[String] = IO.pure(s"$name is not running: `bankops sandbox up` starts the sandbox")

  def status(timeout: FiniteDuration): IO[ServiceStatus] =
    pid.flatMap { p =>
      val healthy = if (p.isDefined) ready.timeout(timeout).attempt.map(_.isRight) else IO.pure(false)
      for {
        up <- healthy
        v <- if (up) version.attempt.map(_.getOrElse("?")) else IO.pure("")
        a <- statusAddress(timeout)
      } yield ServiceStatus(name, up, a, p, v)
    }
}

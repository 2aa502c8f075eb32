package bankops.jobs.sandbox

import cats.effect.IO

import scala.concurrent.duration.FiniteDuration

/** A sandbox service that is a process the sandbox spawned (a broker, the registry, the handler): found by its pid file,
  * stopped with SIGTERM and `grace` to finish, or killed outright.
  */
private[sandbox] trait SpawnedService extends SandboxService {
  protected def process: ServiceProcess

  /** How long it has after SIGTERM before it is killed. */
  protected def grace: FiniteDuration

  def pid: IO[Option[Long]] = process.pid
  def stop: IO[Unit] = process.stop(grace)
  override def kill: IO[Unit] = process.kill
}

package bankops.jobs.sandbox

import cats.effect.IO

import scala.concurrent.duration._

import bankops.base.{Failure, Shell}

/** Everything a sandbox service needs to start, check and stop itself. */
private[sandbox] final case class SandboxContext(layout: SandboxLayout, settings: SandboxSettings, secrets: SandboxSecrets, artifacts: Artifacts,
                                                 shell: Shell) {

  /** Polls `check` until it succeeds; fails naming the service, with its log's tail, on timeout or when `alive` says it died. */
  def awaitReady(service: String, timeout: FiniteDuration, alive: IO[Boolean])(check: IO[Unit]): IO[Unit] = {
    val log = layout.log(service)
    // A process in the middle of exec (setsid, then java) briefly shows an empty command line: ask twice
    // before calling it dead (a CI run once failed a registry start on that window).
    val stillAlive = alive.flatMap(a => if (a) IO.pure(true) else IO.sleep(300.millis) >> alive)
    def loop(deadline: Deadline): IO[Unit] =
      stillAlive.flatMap {
        case false =>
          IO.raiseError(Failure.Unavailable(s"$service exited during start; last lines of $log:\n${Processes.tail(log, 20)}"))
        case true =>
          check.attempt.flatMap {
            case Right(_) => IO.unit
            case Left(e) if deadline.isOverdue() =>
              val why = Option(e.getMessage).map(m => s" (last error: ${m.linesIterator.toList.headOption.getOrElse("")})").getOrElse("")
              IO.raiseError(
                Failure.Unavailable(s"$service not ready within ${timeout.toSeconds} s$why; last lines of $log:\n${Processes.tail(log, 20)}"))
            case Left(_) => IO.sleep(500.millis) >> loop(deadline)
          }
      }
    loop(timeout.fromNow)
  }

  def requirePortFree(service: String, port: Int): IO[Unit] = SandboxContext.requirePortFree(service, port)

  /** `BANKOPS_KAFKA_JAVA_OPTS`, split on blanks: added after the brokers' own JVM options when one starts, so they win.
    * For a smaller heap on a small machine, or C1 only where brokers live short, busy lives (the test suite's sandbox).
    */
  def kafkaJavaOptions: List[String] =
    shell.env.get(SandboxContext.KafkaJavaOptions).toList.flatMap(_.trim.split("\\s+")).filter(_.nonEmpty)
}

private[sandbox] object SandboxContext {
  val KafkaJavaOptions = "BANKOPS_KAFKA_JAVA_OPTS"

  def requirePortFree(service: String, port: Int): IO[Unit] =
    IO.blocking(Processes.portFree(port)).ifM(
      IO.unit,
      IO.raiseError(
        Failure.Unavailable(s"port $port for $service is already in use by another process (choose another port with the sandbox up flags)"))
    )
}

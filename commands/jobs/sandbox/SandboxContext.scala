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
      IO.blocking(ephemeralRange).flatMap(range => IO.raiseError(Failure.Unavailable(portTaken(service, port, range))))
    )

  /** Pure: the refusal of a taken port. A port in the ephemeral range can be held by any client's outgoing connection
    * (its local end), not only by a server: a sandbox there fails to start at random, which a port below it never does.
    */
  def portTaken(service: String, port: Int, ephemeral: Option[(Int, Int)]): String =
    s"port $port for $service is already in use by another process (choose another port with the sandbox up flags" +
      ephemeral.collect {
        case (lo, hi) if port >= lo && port <= hi =>
          s"; $port is in this machine's ephemeral range $lo-$hi, where any outgoing connection can take it: a port below $lo is safe"
      }.getOrElse("") + ")"

  /** Linux's range of local ports for outgoing connections (net.ipv4.ip_local_port_range), where it can be read. */
  private def ephemeralRange: Option[(Int, Int)] =
    scala.util.Try(os.read(os.root / "proc" / "sys" / "net" / "ipv4" / "ip_local_port_range").trim.split("\\s+").map(_.toInt)).toOption.collect {
      case Array(lo, hi) => (lo, hi)
    }
}

package bankops.jobs.handler

import cats.effect.{ExitCode, IO}

import scala.concurrent.duration._

import bankops.base.{Exit, Shell}
import bankops.services.kafka.{Denied, Doing}

/** Runs the handler's batches until SIGINT/SIGTERM (the batch in hand is finished first, then exit 0), reports its
  * figures every `every`, and retries a failed batch with backoff (a database or broker that went away) with one
  * line per failure; only errors no retry mends end it.
  */
private[handler] object HandlerRunner {
  /** `polling`, `applying`: what a refusal by Kafka's authorizer while polling (and recovering) or applying a batch is reported as. */
  def apply(loop: HandlerLoop, decoder: CommandDecoder, stopped: IO[Boolean], every: FiniteDuration,
            report: (HandlerStatus, HandlerStatus) => IO[Unit], shell: Shell, polling: Doing, applying: Doing): IO[ExitCode] = {
    val batch: IO[Unit] = IO.blocking(loop.step()).adaptError(Denied.tag(polling)).flatMap {
      case None => IO.unit
      case Some(records) =>
        // A registry that does not answer is waited for (up to --timeout) unless the handler is asked to stop.
        decoder.resolve(records.map(_.value)).race((IO.sleep(50.millis) >> stopped).iterateUntil(identity)).flatMap {
          case Left(_) => IO.unit
          case Right(_) => IO.raiseError(new HandlerStopping)
        }.onError(_ => IO.blocking(loop.rewind(records))) >>
          IO.blocking(loop.apply(records)).adaptError(Denied.tag(applying))
    }

    def status(previous: HandlerStatus): IO[HandlerStatus] =
      IO.monotonic.flatMap { now =>
        if (now.toNanos - previous.nanos < every.toNanos) IO.pure(previous)
        else IO.blocking(loop.stats.snapshot(loop.lag, now.toNanos)).flatTap(report(previous, _))
      }

    // A backoff ends early on SIGTERM: the handler stops within a second at any point.
    def backoff(delay: FiniteDuration): IO[Unit] = (IO.sleep(50.millis) >> stopped).iterateUntil(identity).timeoutTo(delay, IO.unit).void

    def go(previous: HandlerStatus, failures: Int): IO[HandlerStatus] = stopped.flatMap {
      case true => IO.pure(previous)
      case false =>
        batch.attempt.flatMap {
          case Right(_) => status(previous).flatMap(go(_, 0))
          case Left(e) if HandlerLoop.fatal(e) && !(HandlerLoop.overrun(e) && failures < HandlerLoop.OverrunRetries) => IO.raiseError(e)
          case Left(_: HandlerStopping) => IO.pure(previous) // a wait cut short by SIGTERM: nothing of the batch applied
          // The partitions naming the held accounts are held back from now on: the others go on at once.
          case Left(e @ AccountsHeld(held)) if held.nonEmpty =>
            IO.blocking(loop.afterFailure(e)) >>
              shell.info(s"handler: batch failed, nothing of it applied (${e.getMessage}); holding back the partitions that name them") >>
              status(previous).flatMap(go(_, failures))
          case Left(e) =>
            val delay = ((200L << (failures min 6)) min 10000L).millis
            IO.blocking(loop.afterFailure(e)) >>
              shell.info(s"handler: batch failed, nothing of it applied (${HandlerLoop.describe(e)}" +
                (if (HandlerLoop.overrun(e)) "; its Kafka transaction outlived its timeout and was aborted: a new producer takes over" else "") +
                s"); retrying in ${delay.toMillis} ms") >>
              (if (shell.verbose) IO.blocking(e.printStackTrace(shell.err)) else IO.unit) >>
              backoff(delay) >> status(previous).flatMap(go(_, failures + 1))
        }
    }

    IO.monotonic.flatMap { start =>
      val first = loop.stats.snapshot(0L, start.toNanos)
      go(first, 0).flatMap { last =>
        IO.monotonic.flatMap(now => IO.blocking(loop.stats.snapshot(loop.lag, now.toNanos))).flatMap { end =>
          shell.info(s"handler: stopped: ${end.line(first.copy(nanos = start.toNanos))}")
        }.as(Exit.Ok)
      }
    }
  }
}

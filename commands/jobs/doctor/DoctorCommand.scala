package bankops.jobs.doctor

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import io.circe.Json

import scala.concurrent.duration._

import bankops.base.{Exit, Flags, Job, OutputFormat, Shell}
import bankops.services.config.{ConnectionFlags, Connections}

/** `bankops doctor`: checks whatever is configured, one line per step. */
object DoctorCommand {

  private def run(flags: ConnectionFlags, output: Option[OutputFormat], timeout: FiniteDuration)(shell: Shell): IO[ExitCode] =
    Connections.load(flags, shell, checked = false).flatMap(s => new Doctor(s, timeout).all).flatMap { checks =>
      val width = checks.map(_.name.length).maxOption.getOrElse(0)
      OutputFormat.emit(OutputFormat.resolve(output, shell), shell)(
        json = checks.map(c =>
          Json.obj("check" -> Json.fromString(c.name), "passed" -> Json.fromBoolean(c.passed), "detail" -> Json.fromString(c.detail))),
        table = checks.map(c => s"${if (c.passed) "ok  " else "FAIL"}  ${c.name.padTo(width, ' ')}  ${c.detail}").mkString("\n")
      ).as(if (checks.forall(_.passed)) Exit.Ok else Exit.Unavailable)
    }

  val job: Job = Job(
    "doctor",
    "Check each connection step (DNS, TCP, TLS trust/expiry/hostname, Kafka metadata, registry, PostgreSQL login); exit 3 if any fails.",
    "bankops doctor --bootstrap-server broker:9093 --command-config client.properties",
    (
      ConnectionFlags.opts,
      OutputFormat.opts,
      Flags.duration("timeout", "How long each step may take: seconds, or e.g. 90s (default 10s).").withDefault(10.seconds)
    ).mapN((f, o, t) => run(f, o, t) _)
  )
}

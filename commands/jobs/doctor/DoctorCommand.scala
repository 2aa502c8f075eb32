package bankops.jobs.doctor

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import scala.concurrent.duration._

import bankops.base.{Exit, Flags, Job, OutputFormat, Rendered, Shell, Shown}
import bankops.flags.ConnectionOpts
import bankops.services.config.{ConnectionFlags, Connections}

/** `bankops doctor`: checks whatever is configured, one line per step. */
object DoctorCommand {

  final case class Options(flags: ConnectionFlags, output: Option[OutputFormat], timeout: FiniteDuration, require: List[String])

  /** Every step's check, in order; each is given the timeout. */
  def check(o: Options, shell: Shell): IO[List[Check]] =
    Connections.load(o.flags, shell, checked = false).flatMap(s => new Doctor(s, o.timeout).all)

  /** The one renderer: a line per check; exit 3 when a connection step failed, 4 when a job named with --require lacks
    * what it needs (an identity's access fails doctor only for those).
    */
  def render(o: Options, checks: List[Check]): Shown = {
    val width = checks.map(_.name.length).maxOption.getOrElse(0)
    def mark(c: Check) = c.access match {
      case Some(Access.Missing) => "no  "
      case Some(Access.Unknown) => "?   "
      case _ => if (c.passed) "ok  " else "FAIL"
    }
    val refused = checks.filter(c => o.require.exists(j => c.name == s"access $j") && c.access.contains(Access.Missing))
    Shown(o.output,
      Rendered.result(
        checks.map(c =>
          Json.fromFields(List("check" -> Json.fromString(c.name), "passed" -> Json.fromBoolean(c.passed), "detail" -> Json.fromString(c.detail)) ++
            c.access.map(a => "access" -> Json.fromString(a.name)))),
        checks.map(c => s"${mark(c)}  ${c.name.padTo(width, ' ')}  ${c.detail}").mkString("\n")),
      if (!checks.filter(_.access.isEmpty).forall(_.passed)) Exit.Unavailable
      else if (refused.nonEmpty) Exit.NotAuthorized
      else Exit.Ok)
  }

  private val require: Opts[List[String]] = Opts.options[String]("require",
    s"Exit 4 when this identity lacks what JOB needs (repeatable; ${JobNeeds.jobs.mkString(", ")}).", metavar = "JOB")
    .orEmpty.mapValidated(
      _.traverse(j => if (JobNeeds.jobs.contains(j)) j.validNel else s"--require: unknown job $j (${JobNeeds.jobs.mkString(", ")})".invalidNel))

  val job: Job[Options, List[Check]] = Job(
    "doctor",
    "Check each connection step (DNS, TCP, TLS trust/expiry/hostname, Kafka metadata, registry, PostgreSQL login; exit 3 if any " +
      "fails), the Kafka identity in use and, per job, whether it holds what the job needs (--require JOB: exit 4 if not).",
    "bankops doctor --bootstrap-server broker:9093 --command-config client.properties --require handler",
    (
      ConnectionOpts.opts,
      OutputFormat.opts,
      Flags.duration("timeout", "How long each step may take: seconds, or e.g. 90s (default 10s).").withDefault(10.seconds),
      require
    ).mapN(Options.apply)
  )(check, render)
}

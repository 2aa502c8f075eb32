package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import scala.concurrent.duration.FiniteDuration

import bankops.base.{Exit, Failure, Flags, Job, OutputFormat, Rendered, Shell, Shown, Table}
import bankops.flags.ConnectionOpts
import bankops.services.config.{ConnectionContext, Connections, ContextStore}

/** `bankops sandbox up|status|down|restart|stop|start|logs|env`. */
object SandboxCommand {

  private val dirOpt: Opts[Option[os.Path]] = ConnectionOpts.sandboxDir

  private def sandbox(dir: Option[os.Path], shell: Shell, provision: Sandbox.Provision = Sandbox.NoProvision) =
    new Sandbox(SandboxLayout(Connections.sandboxDir(dir, shell)), shell, provision)

  final case class UpOptions(dir: Option[os.Path], asked: SandboxSettings.Requested, noHandler: Boolean)

  /** Up says each service as it starts; its report is what became of the sandbox's context. */
  private def up(provision: Sandbox.Provision) = Job.Sub("up",
    "Start a Kafka cluster (three brokers unless --brokers; TLS, an authorizer, one identity per service), the schema registry " +
      "and PostgreSQL (or reuse them when healthy), apply the bank's topology (topics, access, subjects), and start its command handler.",
    (dirOpt, SandboxSettings.requested, Opts.flag("no-handler", "Leave the command handler out (a quiet commands topic).").orFalse)
      .mapN(UpOptions.apply))(
    (o, shell) => {
      val box = sandbox(o.dir, shell, provision)
      box.up(o.asked.settings, handler = !o.noHandler, keepShape = !o.asked.brokersGiven).flatMap { conn =>
        register(shell, box.layout.dir, Some(ContextStore.sandboxContext(box.layout.dir, conn, box.layout.dbPasswordFile)), "registered")
      }
    },
    (_, context: Rendered) =>
      Shown(None, context ++ Rendered.note("sandbox ready: `bankops sandbox env` prints the settings for other clients"), Exit.Ok))

  /** The sandbox's context follows the sandbox; a contexts file that cannot be written only costs a warning. */
  private def register(shell: Shell, dir: os.Path, context: Option[ConnectionContext], done: String): IO[Rendered] =
    ContextStore.registerSandbox(shell.env, dir, context).attempt.map {
      case Right(Some(n)) if n != ContextStore.SandboxName && context.nonEmpty =>
        Rendered.note(s"context $n $done (for $dir: context ${ContextStore.SandboxName} belongs to another sandbox or was added by hand)")
      case Right(Some(n)) => Rendered.note(s"context $n $done")
      case Right(None) => Rendered.empty
      case Left(e) => Rendered.warning(s"the sandbox's context not updated: ${e.getMessage}")
    }

  final case class StatusOptions(dir: Option[os.Path], timeout: FiniteDuration, output: Option[OutputFormat])

  private def renderStatus(o: StatusOptions, services: List[ServiceStatus]): Shown =
    Shown(o.output,
      Rendered.result(
        services.map(s =>
          Json.obj("service" -> Json.fromString(s.service), "up" -> Json.fromBoolean(s.up),
            "address" -> Json.fromString(s.address), "pid" -> s.pid.fold(Json.Null)(Json.fromLong), "version" -> Json.fromString(s.version))),
        Table.render(List("SERVICE", "STATE", "ADDRESS", "PID", "VERSION"),
          services.map(s => List(s.service, if (s.up) "up" else "down", s.address, s.pid.fold("")(_.toString), s.version)))),
      if (services.forall(_.up)) Exit.Ok else Exit.Unavailable)

  private val status = Job.Sub("status", "Per service: up or down, address, pid, version. Exit 3 when any is down.",
    (dirOpt,
      Flags.duration("timeout", s"How long each service gets to answer before it is reported down (default ${Sandbox.StatusTimeout.toSeconds}s).")
        .withDefault(Sandbox.StatusTimeout), OutputFormat.opts).mapN(StatusOptions.apply))((o, shell) => sandbox(o.dir, shell).status(o.timeout),
    renderStatus)

  final case class DownOptions(dir: Option[os.Path], wipe: Boolean)

  /** What down did: the services it stopped, and (with --wipe) what became of the sandbox's context. */
  final case class Stopped(services: List[String], context: Rendered)

  private val down = Job.Sub("down", "Stop every sandbox service; --wipe also deletes their data.",
    (dirOpt,
      Opts.flag("wipe",
        "Delete the sandbox's data, certificates and logs too (its services killed, not shut down: nothing of them is kept).").orFalse).mapN(
      DownOptions.apply))(
    (o, shell) => {
      val box = sandbox(o.dir, shell)
      box.down(o.wipe, graceful = !o.wipe).flatMap(stopped =>
        (if (o.wipe) register(shell, box.layout.dir, None, "removed") else IO.pure(Rendered.empty)).map(Stopped(stopped, _)))
    },
    (o, s: Stopped) => {
      val wiped = if (o.wipe) "; data wiped" else ""
      Shown(None, Rendered.note(if (s.services.isEmpty) s"nothing was running$wiped" else s"stopped ${s.services.mkString(", ")}$wiped") ++ s.context,
        Exit.Ok)
    })

  // Checked against the sandbox's list of services when the command runs (exit 2 naming them).
  private val serviceArg: Opts[String] = Opts.argument[String]("SERVICE")

  final case class ServiceOptions(dir: Option[os.Path], service: String)

  /** Restart says each step as it is taken. */
  private val restart = Job.Sub("restart",
    "Stop one service (a broker kafka-N, registry, postgres or handler) and start it on the same data: see what clients do meanwhile.",
    (dirOpt, serviceArg).mapN(ServiceOptions.apply))((o, shell) => sandbox(o.dir, shell).restart(o.service),
    (_, _: Unit) => Shown.exit(Exit.Ok))

  final case class AloneOptions(dir: Option[os.Path], services: List[String])

  private def alone(name: String, start: Boolean) = Job.Sub(name,
    s"${if (start) "Start" else "Stop"} services alone, together: a broker (kafka-N) while the others serve, two to lose the quorum, or the " +
      "handler to let commands pile up.",
    (dirOpt, Opts.arguments[String]("SERVICE").map(_.toList)).mapN(AloneOptions.apply))(
    (o, shell) => sandbox(o.dir, shell).alone(o.services, start),
    (_, done: List[(String, String)]) => Shown(None, Rendered.all(done.map { case (s, r) => Rendered.note(f"$s%-9s $r") }), Exit.Ok))

  final case class LogsOptions(dir: Option[os.Path], service: String, lines: Int)

  private val logs = Job.Sub("logs", "Print the end of a service's log: a broker (kafka-N), registry, postgres or handler.",
    (
      dirOpt,
      serviceArg,
      Opts.option[Int]("lines", "How many lines from the end (default 100).", "n").withDefault(100)
    ).mapN(LogsOptions.apply))(
    (o, shell) =>
      sandbox(o.dir, shell).log(o.service).flatMap { log =>
        IO.blocking(os.exists(log)).ifM(
          IO.blocking(Processes.tail(log, o.lines)),
          IO.raiseError(Failure.BadInput(s"no ${o.service} log at $log: the sandbox has not run here"))
        )
      },
    (_, tail: String) => Shown(None, Rendered.lines(List(tail)), Exit.Ok))

  private val identityOpt: Opts[String] =
    Opts.option[String]("as", s"The identity whose settings to print: ${Identities.all.mkString(", ")} (default ${Identities.Operator}).",
      metavar = "NAME")
      .withDefault(Identities.Operator)
      .mapValidated(n =>
        if (Identities.all.contains(n)) n.validNel else s"--as: no identity '$n' (one of ${Identities.all.mkString(", ")})".invalidNel)

  final case class EnvOptions(dir: Option[os.Path], identity: String, scram: Boolean)

  /** The variables other clients need to reach the sandbox as `o.identity`, in the order they are printed. */
  private def variables(o: EnvOptions, shell: Shell): IO[List[(String, String)]] = {
    val box = sandbox(o.dir, shell)
    val layout = box.layout
    (bankops.services.config.SandboxConnection.read(layout.dir), box.recordedSettings, SandboxSecrets.load(layout)).tupled.flatMap {
      case (Some(c), Some(settings), Some(secrets)) =>
        val id = layout.tls.identity(o.identity)
        val auth =
          if (o.scram) List("KAFKA_BROKERS" -> settings.scramBootstrap, "KAFKA_SECURITY_PROTOCOL" -> "SASL_SSL",
            "KAFKA_SASL_MECHANISM" -> ClientConfig.ScramMechanism, "KAFKA_SASL_USERNAME" -> o.identity,
            "KAFKA_SASL_PASSWORD" -> secrets.scramPassword(o.identity))
          else List("KAFKA_BROKERS" -> c.bootstrapServers, "KAFKA_SECURITY_PROTOCOL" -> "SSL",
            "KAFKA_SSL_CERTIFICATE_LOCATION" -> id.certPem.toString, "KAFKA_SSL_KEY_LOCATION" -> id.keyPem.toString)
        IO.pure(auth ++ List(
          "BANKOPS_COMMAND_CONFIG" -> ClientConfig.file(layout, o.identity, o.scram).toString, "KAFKA_SSL_CA_LOCATION" -> layout.tls.caPem.toString,
          "SCHEMA_REGISTRY_URL" -> c.registryUrl, "DB_URL" -> c.dbUrl, "DB_USER" -> c.dbUser, "DB_PASSWORD" -> c.dbPassword))
      case _ => IO.raiseError(Failure.Unavailable("the sandbox is not running: start it with `bankops sandbox up`"))
    }
  }

  private val env =
    Job.Sub("env", "Print `export` lines so Kafka's tools, kcat and confluent-kafka use the sandbox (eval \"$(bankops sandbox env)\").",
      (dirOpt, identityOpt, Opts.flag("scram", "Authenticate as the identity's SCRAM user (SASL_SSL listener) instead of its certificate.").orFalse)
        .mapN(EnvOptions.apply))(variables,
      (_, vars: List[(String, String)]) =>
        Shown(None, Rendered.lines(vars.map { case (k, v) => s"export $k='${v.replace("'", "'\\''")}'" }), Exit.Ok))

  /** `provision` sets the bank up once the services answer (the job list passes `bankops apply`). */
  def job(provision: Sandbox.Provision): Job.Of = Job.of(
    "sandbox",
    "Run a living bank on this machine: real SSL Kafka, a Confluent-compatible schema registry, PostgreSQL and the command handler.",
    "bankops sandbox up && eval \"$(bankops sandbox env)\""
  )(up(provision).chosen, status.chosen, down.chosen, restart.chosen, alone("stop", start = false).chosen, alone("start", start = true).chosen,
    logs.chosen, env.chosen)
}

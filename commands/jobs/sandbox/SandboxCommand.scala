package bankops.jobs.sandbox

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import bankops.base.{Exit, Failure, Job, OutputFormat, Shell, Table}
import bankops.services.config.{ConnectionContext, ConnectionFlags, Connections, ContextStore}

/** `bankops sandbox up|status|down|restart|stop|start|logs|env`. */
object SandboxCommand {

  private val dirOpt: Opts[Option[os.Path]] = ConnectionFlags.sandboxDir

  private def sandbox(dir: Option[os.Path], shell: Shell, provision: Sandbox.Provision = Sandbox.NoProvision) =
    new Sandbox(SandboxLayout(Connections.sandboxDir(dir, shell)), shell, provision)

  private def up(provision: Sandbox.Provision) = Opts.subcommand("up",
    "Start a Kafka cluster (three brokers unless --brokers; TLS, an authorizer, one identity per service), the schema registry " +
      "and PostgreSQL (or reuse them when healthy), apply the bank's topology (topics, access, subjects), and start its command handler.")(
    (dirOpt, SandboxSettings.requested, Opts.flag("no-handler", "Leave the command handler out (a quiet commands topic).").orFalse).mapN {
      (dir, asked, noHandler) => (shell: Shell) =>
        val box = sandbox(dir, shell, provision)
        box.up(asked.settings, handler = !noHandler, keepShape = !asked.brokersGiven).flatMap { conn =>
          val context = ContextStore.sandboxContext(box.layout.dir, conn, box.layout.dbPasswordFile)
          register(shell, box.layout.dir, Some(context), "registered") >>
            shell.info("sandbox ready: `bankops sandbox env` prints the settings for other clients")
        }.as(ExitCode.Success)
    }
  )

  /** The sandbox's context follows the sandbox; a contexts file that cannot be written only costs a warning. */
  private def register(shell: Shell, dir: os.Path, context: Option[ConnectionContext], done: String): IO[Unit] =
    ContextStore.registerSandbox(shell.env, dir, context).attempt.flatMap {
      case Right(Some(n)) if n != ContextStore.SandboxName && context.nonEmpty =>
        shell.info(s"context $n $done (for $dir: context ${ContextStore.SandboxName} belongs to another sandbox or was added by hand)")
      case Right(Some(n)) => shell.info(s"context $n $done")
      case Right(None) => IO.unit
      case Left(e) => shell.warn(s"the sandbox's context not updated: ${e.getMessage}")
    }

  private val status = Opts.subcommand("status", "Per service: up or down, address, pid, version. Exit 3 when any is down.")(
    (dirOpt, OutputFormat.opts).mapN { (dir, output) => (shell: Shell) =>
      sandbox(dir, shell).status.flatMap { services =>
        OutputFormat.emit(OutputFormat.resolve(output, shell), shell)(
          json = services.map(s =>
            Json.obj("service" -> Json.fromString(s.service), "up" -> Json.fromBoolean(s.up),
              "address" -> Json.fromString(s.address), "pid" -> s.pid.fold(Json.Null)(Json.fromLong), "version" -> Json.fromString(s.version))),
          table = Table.render(List("SERVICE", "STATE", "ADDRESS", "PID", "VERSION"),
            services.map(s => List(s.service, if (s.up) "up" else "down", s.address, s.pid.fold("")(_.toString), s.version)))
        ).as(if (services.forall(_.up)) Exit.Ok else Exit.Unavailable)
      }
    }
  )

  private val down = Opts.subcommand("down", "Stop every sandbox service; --wipe also deletes their data.")(
    (dirOpt, Opts.flag("wipe", "Delete the sandbox's data, certificates and logs too.").orFalse).mapN { (dir, wipe) => (shell: Shell) =>
      val box = sandbox(dir, shell)
      box.down(wipe).flatMap {
        case Nil => shell.info(s"nothing was running${if (wipe) "; data wiped" else ""}")
        case stopped => shell.info(s"stopped ${stopped.mkString(", ")}${if (wipe) "; data wiped" else ""}")
      }.flatMap(_ => if (wipe) register(shell, box.layout.dir, None, "removed") else IO.unit)
        .as(ExitCode.Success)
    }
  )

  // Checked against the sandbox's list of services when the command runs (exit 2 naming them).
  private val serviceArg: Opts[String] = Opts.argument[String]("SERVICE")

  private val restart = Opts.subcommand("restart",
    "Stop one service (a broker kafka-N, registry, postgres or handler) and start it on the same data: see what clients do meanwhile.")(
    (dirOpt, serviceArg).mapN { (dir, service) => (shell: Shell) => sandbox(dir, shell).restart(service).as(ExitCode.Success) }
  )

  private def alone(name: String, start: Boolean) = Opts.subcommand(name,
    s"${if (start) "Start" else "Stop"} services alone, together: a broker (kafka-N) while the others serve, two to lose the quorum, or the " +
      "handler to let commands pile up.")(
    (dirOpt, Opts.arguments[String]("SERVICE")).mapN { (dir, services) => (shell: Shell) =>
      sandbox(dir, shell).alone(services.toList, start).flatMap(_.traverse_ { case (s, r) => shell.info(f"$s%-9s $r") }).as(ExitCode.Success)
    }
  )

  private val logs = Opts.subcommand("logs", "Print the end of a service's log: a broker (kafka-N), registry, postgres or handler.")(
    (
      dirOpt,
      serviceArg,
      Opts.option[Int]("lines", "How many lines from the end (default 100).", "n").withDefault(100)
    ).mapN { (dir, service, lines) => (shell: Shell) =>
      sandbox(dir, shell).log(service).flatMap { log =>
        IO.blocking(os.exists(log)).ifM(
          IO.blocking(Processes.tail(log, lines)).flatMap(shell.println).as(ExitCode.Success),
          IO.raiseError(Failure.BadInput(s"no $service log at $log: the sandbox has not run here"))
        )
      }
    }
  )

  private val identityOpt: Opts[String] =
    Opts.option[String]("as", s"The identity whose settings to print: ${Identities.all.mkString(", ")} (default ${Identities.Operator}).",
      metavar = "NAME")
      .withDefault(Identities.Operator)
      .mapValidated(n =>
        if (Identities.all.contains(n)) n.validNel else s"--as: no identity '$n' (one of ${Identities.all.mkString(", ")})".invalidNel)

  private val env =
    Opts.subcommand("env", "Print `export` lines so Kafka's tools, kcat and confluent-kafka use the sandbox (eval \"$(bankops sandbox env)\").")(
      (dirOpt, identityOpt, Opts.flag("scram", "Authenticate as the identity's SCRAM user (SASL_SSL listener) instead of its certificate.").orFalse)
        .mapN { (dir, identity, scram) => (shell: Shell) =>
          val box = sandbox(dir, shell)
          val layout = box.layout
          (bankops.services.config.SandboxConnection.read(layout.dir), box.recordedSettings, SandboxSecrets.load(layout)).tupled.flatMap {
            case (Some(c), Some(settings), Some(secrets)) =>
              val id = layout.tls.identity(identity)
              val auth =
                if (scram) List("KAFKA_BROKERS" -> settings.scramBootstrap, "KAFKA_SECURITY_PROTOCOL" -> "SASL_SSL",
                  "KAFKA_SASL_MECHANISM" -> ClientConfig.ScramMechanism, "KAFKA_SASL_USERNAME" -> identity,
                  "KAFKA_SASL_PASSWORD" -> secrets.scramPassword(identity))
                else List("KAFKA_BROKERS" -> c.bootstrapServers, "KAFKA_SECURITY_PROTOCOL" -> "SSL",
                  "KAFKA_SSL_CERTIFICATE_LOCATION" -> id.certPem.toString, "KAFKA_SSL_KEY_LOCATION" -> id.keyPem.toString)
              val vars = auth ++ List(
                "BANKOPS_COMMAND_CONFIG" -> ClientConfig.file(layout, identity, scram).toString, "KAFKA_SSL_CA_LOCATION" -> layout.tls.caPem.toString,
                "SCHEMA_REGISTRY_URL" -> c.registryUrl, "DB_URL" -> c.dbUrl, "DB_USER" -> c.dbUser, "DB_PASSWORD" -> c.dbPassword)
              vars.traverse_ { case (k, v) => shell.println(s"export $k='${v.replace("'", "'\\''")}'") }.as(ExitCode.Success)
            case _ => IO.raiseError(Failure.Unavailable("the sandbox is not running: start it with `bankops sandbox up`"))
          }
        }
    )

  /** `provision` sets the bank up once the services answer (the job list passes `bankops apply`). */
  def job(provision: Sandbox.Provision): Job.Actions = Job.actions(
    "sandbox",
    "Run a living bank on this machine: real SSL Kafka, a Confluent-compatible schema registry, PostgreSQL and the command handler.",
    "bankops sandbox up && eval \"$(bankops sandbox env)\"",
    up(provision) orElse status orElse down orElse restart orElse alone("stop", start = false) orElse
      alone("start", start = true) orElse logs orElse env
  )
}

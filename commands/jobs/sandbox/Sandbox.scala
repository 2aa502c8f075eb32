package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._
import io.circe.generic.semiauto._
import io.circe.parser.decode
import io.circe.syntax._
import io.circe.{Decoder, Encoder}

import scala.concurrent.duration._

import bankops.base.Shell
import bankops.services.config.SandboxConnection

/** Starts, inspects and stops the four services. Each `up` reuses a service
  * that is healthy and started with the same settings, and restarts the rest;
  * once Kafka, the registry and PostgreSQL answer, `provision` sets the bank up on
  * them (its topics and subjects) and the command handler starts.
  */
final class Sandbox(val layout: SandboxLayout, shell: Shell, provision: Sandbox.Provision = Sandbox.NoProvision) {
  import Sandbox._

  private val stateFile = layout.dir / "state.json"
  private val artifacts = new Artifacts(Artifacts.cacheDir(shell.env), Artifacts.mavenUrl(shell.env))

  def recordedSettings: IO[Option[SandboxSettings]] = IO.blocking {
    if (!os.exists(stateFile)) None else decode[SandboxSettings](os.read(stateFile)).toOption
  }

  private def context(settings: SandboxSettings): IO[SandboxContext] =
    SandboxSecrets.loadOrCreate(layout).map(SandboxContext(layout, settings, _, artifacts, shell))

  /** The context of a sandbox set up before, if any: status and down create nothing. */
  private def existing: IO[Option[SandboxContext]] =
    (recordedSettings, SandboxSecrets.load(layout)).tupled.map { case (settings, secrets) =>
      secrets.map(SandboxContext(layout, settings.getOrElse(SandboxSettings()), _, artifacts, shell))
    }

  private def timed[A](service: String, io: IO[A])(describe: A => String): IO[A] =
    IO.monotonic.flatMap(t0 => io.flatTap(a => IO.monotonic.flatMap(t1 => shell.info(f"$service%-9s ${describe(a)} (${(t1 - t0).toMillis / 1000.0}%.1f s)"))))

  def up(settings: SandboxSettings, handler: Boolean = true): IO[SandboxConnection] =
    for {
      _ <- IO.blocking(SandboxDir.checkForUp(layout)).flatMap(IO.fromEither(_))
      previous <- recordedSettings
      ctx <- context(settings)
      _ <- IO.blocking(os.remove(layout.dir / SandboxConnection.FileName, checkExists = false))
      pg = new PostgresService(ctx)
      kafka = new KafkaService(ctx)
      registry = new RegistryService(ctx)
      same = (f: SandboxSettings => Any) => previous.exists(p => f(p) == f(settings))
      _ <- checkPorts(List("postgres" -> (pg.pid, List(settings.dbPort)),
             "kafka" -> (kafka.pid, List(settings.kafkaPort, settings.controllerPort)), "registry" -> (registry.pid, List(settings.registryPort))))
      _ <- timed("tls", Tls.ensure(layout.tls, ctx.secrets.tlsPassword) >> IO.blocking(ClientConfig.write(layout, ctx.secrets)))(_ => s"CA and keystores in ${layout.tls.dir}")
      _ <- IO.blocking(os.write.over(stateFile, settings.asJson.spaces2))
      _ <- timed("postgres", ensure(pg.pid, pg.ready, pg.stop, pg.start, same(_.dbPort)))(r => s"$r at 127.0.0.1:${settings.dbPort}")
      _ <- (
             timed("kafka", ensure(kafka.pid, kafka.ready, kafka.stop, kafka.start, same(s => (s.kafkaPort, s.controllerPort, s.mtls))))(r =>
               s"$r at ${settings.bootstrap} (SSL${if (settings.mtls) ", client certificates required" else ""})"),
             timed("registry", ensure(registry.pid, registry.ready, registry.stop, registry.start(settings.dbPort), same(s => (s.registryPort, s.registryTls, s.dbPort))))(r =>
               s"$r at ${settings.registryUrl}")
           ).parTupled
      conn = SandboxConnection(settings.bootstrap, layout.clientProperties, settings.registryUrl, settings.dbUrl, SandboxSettings.DbUser, ctx.secrets.dbPassword)
      _ <- SandboxConnection.write(layout.dir, conn)
      _ <- timed("topology", provision(layout, shell))(identity)
      h = new HandlerService(ctx)
      _ <- if (handler) timed("handler", h.pid.flatMap(p => if (p.isDefined) IO.pure("reused") else h.start.as("started")))(r =>
             s"$r: group ${HandlerService.Group} on commands, answering on command_feedback and balance_changed")
           else IO.unit
    } yield conn

  /** Before starting anything: every port a service not already ours would take must be free. */
  private def checkPorts(services: List[(String, (IO[Option[Long]], List[Int]))]): IO[Unit] =
    services.traverse_ { case (name, (pid, ports)) =>
      pid.flatMap {
        case Some(_) => IO.unit
        case None    => ports.traverse_(p => SandboxContext.requirePortFree(name, p))
      }
    }

  /** Reuse a healthy service started with the same settings; otherwise (re)start it. */
  private def ensure(pid: IO[Option[Long]], ready: IO[Unit], stop: IO[Unit], start: IO[Unit], unchanged: Boolean): IO[String] =
    pid.flatMap {
      case Some(_) if unchanged => ready.timeout(10.seconds).attempt.flatMap {
          case Right(_) => IO.pure("reused")
          case Left(_)  => stop >> start.as("restarted")
        }
      case Some(_) => stop >> start.as("restarted")
      case None    => start.as("started")
    }

  def status: IO[List[ServiceStatus]] =
    existing.flatMap {
      case None => IO.pure(Services.map(ServiceStatus(_, up = false, "", None, "")))
      case Some(ctx) =>
        val settings = ctx.settings
        val pg = new PostgresService(ctx)
        val kafka = new KafkaService(ctx)
        val registry = new RegistryService(ctx)
        def check(name: String, address: String, pid: IO[Option[Long]], ready: IO[Unit], version: IO[String]) =
          pid.flatMap { p =>
            val healthy = if (p.isDefined) ready.timeout(10.seconds).attempt.map(_.isRight) else IO.pure(false)
            healthy.flatMap(up => (if (up) version.attempt.map(_.getOrElse("?")) else IO.pure("")).map(v => ServiceStatus(name, up, address, p, v)))
          }
        List(
          check("postgres", s"127.0.0.1:${settings.dbPort}", pg.pid, pg.ready, pg.version),
          check("kafka", settings.bootstrap, kafka.pid, kafka.ready, IO.pure(Artifacts.KafkaVersion)),
          check("registry", settings.registryUrl, registry.pid, registry.ready, IO.pure(s"Apicurio ${Artifacts.ApicurioVersion}")),
          handlerStatus(new HandlerService(ctx))
        ).sequence
    }

  /** Up while its process lives; the address column gives its group's lag (what it has yet to apply), also while it is
    * stopped: commands pile up.
    */
  private def handlerStatus(h: HandlerService): IO[ServiceStatus] =
    h.pid.flatMap { p =>
      val lag = h.lag.timeout(10.seconds).attempt.map(_.fold(_ => "", l => s"lag $l"))
      lag.map(l => ServiceStatus("handler", p.isDefined, s"group ${HandlerService.Group}${if (l.isEmpty) "" else s", $l"}", p, if (p.isDefined) h.version else ""))
    }

  /** Stops or starts the handler alone (the other services only go down and up together, or restart). */
  def handler(start: Boolean): IO[String] =
    existing.flatMap {
      case None => IO.raiseError(bankops.base.Failure.Unavailable("no sandbox has run here: start it with `bankops sandbox up`"))
      case Some(ctx) =>
        val h = new HandlerService(ctx)
        h.pid.flatMap {
          case Some(_) if start => IO.pure("already running")
          case None if !start => IO.pure("not running")
          case Some(_) => h.stop.as("stopped")
          case None =>
            SandboxConnection.read(layout.dir).flatMap {
              case None => IO.raiseError(bankops.base.Failure.Unavailable("the sandbox is not running: start it with `bankops sandbox up`"))
              case Some(_) => h.start.as("started")
            }
        }
    }

  /** Stops one service and starts it again on the same data and ports: a failover drill for clients. */
  def restart(service: String): IO[Unit] =
    existing.flatMap {
      case None => IO.raiseError(bankops.base.Failure.Unavailable("no sandbox has run here: start it with `bankops sandbox up`"))
      case Some(ctx) =>
        val (pid, stop, start) = service match {
          case "kafka" => val k = new KafkaService(ctx); (k.pid, k.stop, k.start)
          case "registry" => val r = new RegistryService(ctx); (r.pid, r.stop, r.start(ctx.settings.dbPort))
          case "handler" => val h = new HandlerService(ctx); (h.pid, h.stop, h.start)
          case _ => val p = new PostgresService(ctx); (p.pid, p.stop, p.start)
        }
        // Only a running service: alone, a stopped one could start without what it needs (the registry's database).
        pid.flatMap {
          // The hint names the command that mends it: `start handler` beside running services, `up` otherwise.
          case None if service == "handler" => new KafkaService(ctx).pid.flatMap { kafka =>
            IO.raiseError(bankops.base.Failure.Unavailable(
              if (kafka.isDefined) "handler is not running: `bankops sandbox start handler` starts it"
              else "handler is not running, nor is Kafka: `bankops sandbox up` starts the sandbox"))
          }
          case None => IO.raiseError(bankops.base.Failure.Unavailable(s"$service is not running: `bankops sandbox up` starts the sandbox"))
          case Some(_) => timed(service, stop >> start)(_ => "restarted")
        }
    }

  /** Stops whatever runs; returns the services that were stopped. */
  def down(wipe: Boolean): IO[List[String]] =
    IO.blocking(SandboxDir.checkForWipe(layout)).flatMap(IO.fromEither(_)).whenA(wipe) >> existing.flatMap {
      case None => IO.pure(Nil)
      case Some(ctx) =>
        val pg = new PostgresService(ctx)
        val kafka = new KafkaService(ctx)
        val registry = new RegistryService(ctx)
        val handler = new HandlerService(ctx)
        def stopIf(name: String, pid: IO[Option[Long]], stop: IO[Unit]) = pid.flatMap(p => if (p.isDefined) stop.as(List(name)) else IO.pure(Nil))
        for {
          _ <- IO.blocking(os.remove(layout.dir / SandboxConnection.FileName, checkExists = false))
          // The handler first: it finishes its batch while Kafka and PostgreSQL are still there.
          h <- stopIf("handler", handler.pid, handler.stop)
          r <- stopIf("registry", registry.pid, registry.stop)
          k <- stopIf("kafka", kafka.pid, kafka.stop)
          p <- stopIf("postgres", pg.pid, pg.stop)
        } yield h ++ r ++ k ++ p
    }.flatTap(_ => if (wipe) IO.blocking(os.remove.all(layout.dir)) else IO.unit)
}

object Sandbox {
  val Services: List[String] = List("postgres", "kafka", "registry", "handler")

  /** Sets the bank up on running services (the CLI's top layer applies the default topology with `bankops apply`);
    * its answer is the line `up` prints.
    */
  type Provision = (SandboxLayout, Shell) => IO[String]
  val NoProvision: Provision = (_, _) => IO.pure("left as it is")

  private[sandbox] implicit val settingsEncoder: Encoder[SandboxSettings] = deriveEncoder
  private[sandbox] implicit val settingsDecoder: Decoder[SandboxSettings] = deriveDecoder
}

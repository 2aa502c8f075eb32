package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._
import io.circe.generic.semiauto._
import io.circe.syntax._
import io.circe.{Decoder, Encoder}

import scala.concurrent.duration._

import bankops.base.{AtomicFile, Failure, Shell}
import bankops.services.config.SandboxConnection

/** Starts, inspects and stops the services (`SandboxServices`). Each `up` reuses a service
  * that is healthy and started with the same settings, and restarts the rest;
  * once Kafka, the registry and PostgreSQL answer, `provision` sets the bank up on
  * them (its topics and subjects) and the command handler starts.
  */
final class Sandbox(val layout: SandboxLayout, shell: Shell, provision: Sandbox.Provision = Sandbox.NoProvision) {
  import Sandbox._

  private val stateFile = layout.dir / SandboxConnection.StateFileName
  private val artifacts = new Artifacts(Artifacts.cacheDir(shell.env), Artifacts.mavenUrl(shell.env))

  def recordedSettings: IO[Option[SandboxSettings]] = IO.blocking {
    if (!os.exists(stateFile)) None else bankops.base.JsonInput.decodeQuiet[SandboxSettings](os.read(stateFile)).toOption
  }

  private def context(settings: SandboxSettings): IO[SandboxContext] =
    SandboxSecrets.loadOrCreate(layout).map(SandboxContext(layout, settings, _, artifacts, shell))

  /** This directory's services, and whether a sandbox has run here: if not, they serve for their names only and
    * nothing is asked of them (status and down create nothing).
    */
  private def services: IO[(SandboxServices, Boolean)] =
    (recordedSettings, SandboxSecrets.load(layout)).tupled.map { case (settings, secrets) =>
      (new SandboxServices(SandboxContext(layout, settings.getOrElse(SandboxSettings()), secrets.getOrElse(NoSecrets), artifacts, shell)),
        secrets.isDefined)
    }

  /** The services of a sandbox that has run here; exit 3 otherwise. */
  private def ran: IO[SandboxServices] =
    services.flatMap { case (list, ran) => if (ran) IO.pure(list) else IO.raiseError(NotRun) }

  /** One service by name: exit 2 naming the known ones for any other. */
  private def service(name: String): IO[(SandboxService, Boolean)] =
    services.flatMap { case (list, ran) => IO.fromEither(list.named(name)).map((_, ran)) }

  private def timed[A](service: String, io: IO[A])(describe: A => String): IO[A] =
    IO.monotonic.flatMap(t0 =>
      io.flatTap(a => IO.monotonic.flatMap(t1 => shell.info(f"$service%-9s ${describe(a)} (${(t1 - t0).toMillis / 1000.0}%.1f s)"))))

  /** `keepShape`: the number of brokers was not asked for, so a cluster this sandbox already has keeps its own. */
  def up(asked: SandboxSettings, handler: Boolean = true, keepShape: Boolean = false): IO[SandboxConnection] =
    for {
      _ <- IO.blocking(SandboxDir.checkForUp(layout)).flatMap(IO.fromEither(_))
      previous <- recordedSettings
      hasCluster <- IO.blocking(os.exists(layout.kafkaDir(1) / "data"))
      settings = previous.filter(_ => keepShape && hasCluster).fold(asked)(p => asked.copy(brokers = p.brokers))
      _ <- IO.blocking(checkShape(previous, settings)).flatMap(IO.fromEither(_))
      ctx <- context(settings)
      services = new SandboxServices(ctx)
      _ <- checkPorts(services.all)
      _ <- timed("tls", Tls.ensure(layout.tls, ctx.secrets.tlsPassword) >> IO.blocking(ClientConfig.write(layout, ctx.secrets)))(_ =>
        s"CA and a certificate for each of ${Identities.all.mkString(", ")} in ${layout.tls.dir}")
      _ <- KafkaService.clusterId(layout)
      _ <- IO.blocking(AtomicFile.write(stateFile, settings.asJson.spaces2, perms = "rw-r--r--"))
      ensureAll = (wave: List[SandboxService], restarting: IO[Unit]) =>
        wave.parTraverse_(s => timed(s.name, ensure(s, previous.exists(p => s.startedWith(p) == s.startedWith(settings)), restarting))(s.upLine))
      conn = SandboxConnection(settings.bootstrap, layout.clientProperties, settings.registryUrl, settings.dbUrl, SandboxSettings.DbUser,
        ctx.secrets.dbPassword)
      // The connection file says where the sandbox answers. Restarting a service on the same addresses leaves it in place,
      // so a job in another shell meanwhile reaches the sandbox (or waits on it) instead of finding no sandbox; one that
      // names other addresses is gone before anything restarts, and jobs say the sandbox is not up until it is written.
      stale = SandboxConnection.read(layout.dir).flatMap(c =>
        IO.blocking(os.remove(layout.dir / SandboxConnection.FileName, checkExists = false)).whenA(c.exists(_ != conn)))
      _ <- services.infrastructure.traverse_(ensureAll(_, stale))
      _ <- IO.blocking(AtomicFile.write(layout.dbPasswordFile, ctx.secrets.dbPassword))
      _ <- SandboxConnection.write(layout.dir, conn)
      _ <- timed("topology", provision(layout, settings, shell))(identity)
      _ <- if (handler) ensureAll(services.bank, IO.unit) else IO.unit
    } yield conn

  /** The brokers' data holds the cluster's shape: another number of brokers, or the single unnamed broker of an
    * earlier bankops, is a new cluster, which only a wiped sandbox starts.
    */
  private def checkShape(previous: Option[SandboxSettings], settings: SandboxSettings): Either[Failure, Unit] = {
    val hasData = os.exists(layout.kafkaDir(1) / "data")
    if (os.exists(layout.dir / LegacyKafka))
      Left(Failure.BadInput(s"${layout.dir} holds a sandbox of an earlier bankops (one broker named kafka): " +
          "`bankops sandbox down --wipe` removes it, then `up` starts the new one"))
    else previous.filter(p => hasData && p.brokers != settings.brokers).fold[Either[Failure, Unit]](Right(())) { p =>
      Left(Failure.BadInput(s"this sandbox's Kafka cluster has ${p.brokers} broker(s), not ${settings.brokers}: `bankops sandbox down --wipe` " +
          s"and `up --brokers ${settings.brokers}` start a new one (or leave --brokers out to keep ${p.brokers})"))
    }
  }

  /** Every port once: the brokers' blocks of ports must not run into each other or the other services. */
  private def distinctPorts(services: List[SandboxService]): IO[Unit] = {
    val taken = services.flatMap(s => s.ports.map(_ -> s.name))
    val clashes = taken.groupBy(_._1).collect { case (port, users) if users.size > 1 => s"port $port (${users.map(_._2).mkString(", ")})" }
    IO.raiseWhen(clashes.nonEmpty)(Failure.BadInput(s"the sandbox's ports collide: ${clashes.toList.sorted.mkString("; ")}; " +
        "each broker takes --kafka-port and --controller-port plus 10 per broker after the first"))
  }

  /** Before starting anything: every port a service not already ours would take must be free. */
  private def checkPorts(services: List[SandboxService]): IO[Unit] =
    distinctPorts(services) >> services.traverse_ { s =>
      s.pid.flatMap {
        case Some(_) => IO.unit
        case None => s.ports.traverse_(p => SandboxContext.requirePortFree(s.name, p))
      }
    }

  /** Reuse a healthy service started with the same settings; otherwise `restarting`, then (re)start it. A running
    * service that is slow to answer (a busy machine: a broker's TLS handshake and metadata took over 10 s while five
    * test JVMs ran) is asked again for a minute before it is taken for hung: restarting it had taken three healthy
    * brokers down at once under every job using them.
    */
  private def ensure(s: SandboxService, unchanged: Boolean, restarting: IO[Unit]): IO[String] =
    s.pid.flatMap {
      case Some(_) if unchanged =>
        val answers = s.ready.timeout(10.seconds).attempt.map(_.isRight)
        answers.flatMap {
          case true => IO.pure(true)
          case false =>
            shell.info(
              s"${s.name} is running but did not answer within 10 s: asking again for up to ${ReuseWait.toSeconds} s before restarting it") >>
              (answers, IO.sleep(1.second)).tupled.map(_._1).iterateUntil(identity).timeoutTo(ReuseWait, IO.pure(false))
        }.flatMap {
          case true => s.reused.as("reused")
          case false => restarting >> s.stop >> s.start.as("restarted")
        }
      case Some(_) => restarting >> s.stop >> s.start.as("restarted")
      case None => restarting >> s.start.as("started")
    }

  def status(timeout: FiniteDuration = Sandbox.StatusTimeout): IO[List[ServiceStatus]] =
    services.flatMap { case (list, ran) =>
      if (ran) list.all.traverse(_.status(timeout)) else IO.pure(list.all.map(s => ServiceStatus(s.name, up = false, "", None, "")))
    }

  /** Stops or starts the named services, together (brokers that lost their quorum come back only together); every name
    * is checked before anything is done. Each service's name with what happened to it.
    */
  def alone(names: List[String], start: Boolean): IO[List[(String, String)]] =
    names.distinct.traverse(service).flatMap { found =>
      IO.raiseUnless(found.forall(_._2))(NotRun) >>
        (if (start) SandboxConnection.read(layout.dir).flatMap(c =>
           IO.raiseWhen(c.isEmpty)(Failure.Unavailable("the sandbox is not running: start it with `bankops sandbox up`")))
         else IO.unit) >>
        names.distinct.zip(found.map(_._1)).parTraverse { case (name, s) =>
          s.pid.flatMap {
            case Some(_) if start => IO.pure("already running")
            case None if !start => IO.pure("not running")
            case Some(_) => s.stop.as("stopped")
            case None => s.start.as("started")
          }.map(name -> _)
        }
    }

  /** Stops one service and starts it again on the same data and ports: a failover drill for clients. */
  def restart(name: String): IO[Unit] =
    service(name).flatMap { case (s, ran) =>
      IO.raiseUnless(ran)(NotRun) >>
        // Only a running service: alone, a stopped one could start without what it needs (the registry's database).
        s.pid.flatMap {
          case None => s.notRunning.flatMap(why => IO.raiseError(Failure.Unavailable(why)))
          case Some(_) => timed(name, s.stop >> s.start)(_ => "restarted")
        }
    }

  /** A service's log; exit 2 for an unknown service. */
  def log(name: String): IO[os.Path] = service(name).map { case (s, _) => layout.log(s.name) }

  /** Stops whatever runs, in the reverse of the start order, each wave together (the handler first: it finishes its
    * batch while Kafka and PostgreSQL are still there; the brokers together, so none waits for a quorum that its peers
    * already left); returns the services that were stopped. Not `graceful`, each is killed ([[SandboxService.kill]]):
    * for data that is wiped, or never started on again.
    */
  def down(wipe: Boolean, graceful: Boolean): IO[List[String]] = {
    def end(s: SandboxService) = if (graceful) s.stop else s.kill
    IO.blocking(SandboxDir.checkForWipe(layout)).flatMap(IO.fromEither(_)).whenA(wipe) >> services.flatMap { case (list, ran) =>
      if (!ran) IO.pure(Nil)
      else IO.blocking(os.remove(layout.dir / SandboxConnection.FileName, checkExists = false)) >>
        list.waves.reverse.flatTraverse(_.parFlatTraverse(s => s.pid.flatMap(p => if (p.isDefined) end(s).as(List(s.name)) else IO.pure(Nil)))) <*
        ServiceProcess(layout.pidFile(LegacyKafka), "kafka.Kafka").stop(30.seconds)
    }.flatTap(_ => if (wipe) IO.blocking(os.remove.all(layout.dir)) else IO.unit)
  }
}

object Sandbox {
  /** For naming the services of a sandbox that never ran: nothing reads them. */
  private val NoSecrets = SandboxSecrets("", "")
  /** The one broker of a sandbox made before the cluster had several. */
  private val LegacyKafka = "kafka"
  /** How long a running service that is slow to answer is asked again before `up` restarts it. */
  private val ReuseWait = 60.seconds
  /** How long `status` waits for each service's answer by default. */
  val StatusTimeout: FiniteDuration = 10.seconds
  private def NotRun = Failure.Unavailable("no sandbox has run here: start it with `bankops sandbox up`")

  /** Sets the bank up on running services (the CLI's top layer applies the default topology with `bankops apply`);
    * its answer is the line `up` prints.
    */
  type Provision = (SandboxLayout, SandboxSettings, Shell) => IO[String]
  val NoProvision: Provision = (_, _, _) => IO.pure("left as it is")

  private[sandbox] implicit val settingsEncoder: Encoder[SandboxSettings] = deriveEncoder
  private[sandbox] implicit val settingsDecoder: Decoder[SandboxSettings] = deriveDecoder
}

package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._

import scala.concurrent.duration._

import bankops.base.{JvmOptions, ReadyFile, Version}
import bankops.services.bank.BankNames
import bankops.services.config.{ConnectionFlags, KafkaSettings, Source, Sourced}
import bankops.services.kafka.{ConsumerGroups, EndOffsets, KafkaClients}

/** The bank's command handler as the sandbox's fourth service: `bankops handler --instance sandbox` in a JVM of its
  * own with a small heap, on the sandbox's default topics and `balancedb`, its status lines in its log. The stable
  * instance name lets a restart take its partitions back at once. `brokers` are the Kafka it consumes from.
  */
final class HandlerService(ctx: SandboxContext, brokers: List[SandboxService]) extends SpawnedService {
  import HandlerService.Group

  val name = "handler"
  private val log = ctx.layout.log(name)
  private val Marker = "-Dbankops.service=sandbox-handler"
  protected val process: ServiceProcess = ServiceProcess(ctx.layout.pidFile(name), Marker)
  /** After SIGTERM the handler finishes the batch in hand. */
  protected val grace: FiniteDuration = 30.seconds

  def address: String = s"group $Group"
  def ports: List[Int] = Nil
  // It reads the connection `up` wrote once, as it starts: any other address is a restart.
  def startedWith(s: SandboxSettings): Any = s

  /** Up while its process lives: it has no port to ask. */
  def ready: IO[Unit] = pid.flatMap(p => IO.raiseWhen(p.isEmpty)(new IllegalStateException(s"$name is not running")))

  override def upLine(outcome: String): String = s"$outcome: group $Group on commands, answering on command_feedback and balance_changed"

  /** The group's lag (what it has yet to apply) beside it, also while it is stopped: commands pile up. */
  override def statusAddress(timeout: FiniteDuration): IO[String] =
    brokers.traverse(_.pid).flatMap { pids =>
      if (pids.forall(_.isEmpty)) IO.pure(s"$address, lag unknown: Kafka is not running")
      else lag(timeout).timeout(timeout).attempt.map(
        _.fold(_ => s"$address, lag unknown (no answer within ${timeout.toSeconds}s)", l => s"$address, lag $l"))
    }

  // Beside running brokers it can start alone; otherwise the sandbox needs `up`.
  override def notRunning: IO[String] = brokers.traverse(_.pid).map { pids =>
    if (pids.exists(_.isDefined)) s"$name is not running: `bankops sandbox start handler` starts it"
    else s"$name is not running, nor is Kafka: `bankops sandbox up` starts the sandbox"
  }

  private def clientSettings: KafkaSettings =
    KafkaSettings(Sourced(ctx.settings.bootstrap, Source.Sandbox), None, ClientConfig.properties(ctx.layout, ctx.secrets))

  /** The group's lag. Before it committed anything it starts at the earliest offset: all of `commands` is ahead of it. */
  def lag(timeout: FiniteDuration): IO[Long] = KafkaClients.javaAdmin(clientSettings, timeout).use { admin =>
    ConsumerGroups.lag(admin, Group).flatMap {
      case Some(l) => IO.pure(l)
      case None =>
        EndOffsets.partitions(admin, BankNames.Commands).flatMap(ps => (EndOffsets.beginnings(admin, ps), EndOffsets.ends(admin, ps)).tupled)
          .map { case (starts, ends) => ends.map { case (tp, end) => end - starts.getOrElse(tp, 0L) }.sum }
    }
  }

  /** Where the handler declares it consumes (`--ready-file`), beside its pid file. */
  private val readyFile = ctx.layout.pidFile(name) / os.up / s"$name.ready"

  /** Up once process `pid` declared it consumes; a file an earlier handler left names another pid. */
  private def consuming(pid: Long): IO[Unit] =
    ReadyFile.readyAt(readyFile, pid).flatMap(ready => IO.raiseUnless(ready)(new IllegalStateException("not consuming yet")))

  def start: IO[Unit] = {
    val java = (os.Path(sys.props("java.home")) / "bin" / "java").toString
    for {
      // A file a killed handler left would name its pid, which the system may give again.
      _ <- IO.blocking(os.remove(readyFile, checkExists = false))
      pid <- Processes.spawnDetached(
        Seq(java) ++ JvmOptions.Handler ++ Seq(Marker, s"-Dbankops.home=${ctx.shell.home}", "-cp", sys.props("java.class.path"),
          "bankops.Main", "handler", "--instance", "sandbox", "--sandbox-dir", ctx.layout.dir.toString, "--no-context", "-o", "table",
          // As its own identity: it holds only the ACLs the topology grants the handler.
          "--command-config", ClientConfig.file(ctx.layout, Identities.Handler, scram = false).toString, "--ready-file", readyFile.toString),
        // The sandbox's handler works on the sandbox alone: no context, and no variable of the shell that names another cluster.
        ctx.layout.dir, log, Map("MALLOC_ARENA_MAX" -> "2") ++ ConnectionFlags.Variables.map(_ -> (null: String)))
      _ <- process.record(pid)
      _ <- ctx.awaitReady(name, 90.seconds, process.isAlive(pid))(consuming(pid))
    } yield ()
  }

  def version: IO[String] = IO.pure(s"bankops ${Version.current}")
}

object HandlerService {
  val Group = BankNames.HandlerGroup
}

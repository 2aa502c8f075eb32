package bankops.jobs.latency

import cats.effect.{ExitCode, IO, Resource}
import cats.syntax.all._

import scala.concurrent.duration._

import bankops.base.{Exit, Interrupt, Job, OutputFormat, Shell, StepSummary}
import bankops.services.bank.{ConfirmAccountCreation, ConfirmMoneyTransfer}
import bankops.services.config.{ConnectionSettings, Connections, SandboxConnection, Source}
import bankops.services.contracts.SubjectNameStrategy
import bankops.services.kafka.{ChunkProducer, ConsumerGroups, Doing, KafkaClients, RecordDecoder}
import bankops.services.load.{LoadGenerator, LoadSpec}
import bankops.services.registry.{RecordSchemaId, RegistryClient, SchemaResolver}

/** `bankops latency`: the original system's experiment. A probe deposit every second, timed until its feedback, its
  * BalanceChanged and its balance in PostgreSQL show it, while a background load rises step by step; per step the
  * latency percentiles, the load achieved, the handler's CPU, memory and lag; a chart and SLO verdicts at the end.
  */
object LatencyCommand {

  /** The sandbox's handler, when the settings point at the sandbox's Kafka: found by the sandbox, or exported from
    * `bankops sandbox env` into the environment (the same brokers), alike.
    */
  private def sandboxHandler(o: LatencyOptions, settings: ConnectionSettings, shell: Shell): IO[List[Long]] = {
    val dir = Connections.sandboxDir(o.flags.sandboxDir, shell)
    SandboxConnection.read(dir).flatMap {
      case Some(c) if settings.kafka.bootstrapServers.source == Source.Sandbox || c.bootstrapServers == settings.kafka.bootstrapServers.value =>
        ProcessWatch.sandboxHandler(dir).map(_.toList)
      case _ => IO.pure(Nil)
    }
  }

  /** The experiment, and its chart when `o.chart` asks for one: the steps measured, for the CLI or a caller to report.
    * Probes print as JSON lines when the output is JSON; failed probes are warnings.
    */
  def measure(o: LatencyOptions, shell: Shell): IO[LatencyOutcome] =
    for {
      settings <- Connections.load(o.flags, shell)
      chart <- o.chart.traverse(ChartFile.check(_, o.overwrite))
      useDb = o.db.getOrElse(settings.database.url.source != Source.Default)
      pids <- if (o.watchPids.nonEmpty) IO.pure(o.watchPids) else sandboxHandler(o, settings, shell)
      watched <- ProcessWatch.targets(pids)
      plan = LatencyPlan(o.steps, o.stepDuration, o.interval, o.timeout, o.maxTimeouts,
        List(Measure.Feedback, Measure.Balance) ++ (if (useDb) List(Measure.Db) else Nil), 2.seconds, o.warmUp)
      format = OutputFormat.resolve(o.output, shell)
      _ <- shell.info(
        s"latency: ${o.steps.size} steps of ${o.loadKind.name} load (${o.steps.mkString(", ")} records/s), ${o.stepDuration.toSeconds} s each; " +
          s"a probe every ${o.interval.toMillis} ms, timeout ${o.timeout.toMillis} ms" +
          (if (o.warmUp > Duration.Zero) s", after ${o.warmUp.toMillis} ms of warm-up probes reported apart" else "") +
          (if (watched.isEmpty) "" else s"; watching ${watched.map { case (pid, name) => s"$name (pid $pid)" }.mkString(", ")}"))
      outcome <- experiment(o, settings, plan, watched, format, shell)
      _ <- (chart, o.chart).tupled.traverse_ { case (f, path) =>
        ChartFile.write(path, o.overwrite, LatencyChart.render(outcome.steps, o.timeout.toNanos / 1e6, "end-to-end latency against extra load", f)) >>
          shell.info(s"latency: chart written to $path")
      }
    } yield outcome

  def run(o: LatencyOptions)(shell: Shell): IO[ExitCode] =
    for {
      outcome <- measure(o, shell)
      _ <- OutputFormat.print(o.output, shell)(
        json = (outcome.warmUp.toList ++ outcome.steps).traverse_(s => shell.println(s.json.noSpaces)),
        table = shell.println(LatencyReport.table(outcome.warmUp.toList ++ outcome.steps)))
      broken = for { s <- outcome.steps; slo <- o.slos; why <- slo.broken(s) } yield why
      _ <- broken.traverse_(b => shell.info(s"latency: SLO $b"))
      _ <- outcome.stoppedEarly.traverse_(why => shell.info(s"latency: $why"))
      _ <- shell.info(s"latency: interrupted (Ctrl-C) during ${if (outcome.steps.isEmpty) "the warm-up" else s"step ${outcome.steps.size}"}: " +
        "the steps so far are reported, the probes in flight were waited for")
        .whenA(outcome.interrupted)
      _ <- StepSummary.write(shell, LatencyReport.stepSummary(outcome.steps, broken, outcome.stoppedEarly, outcome.interrupted, o.slos, o.chart)) >>
        StepSummary.append(shell, LatencyReport.mermaid(outcome.steps)).whenA(outcome.steps.nonEmpty)
      short = outcome.steps.filter(s => s.load.asked > 0 && s.seconds >= 2 && s.load.achieved < s.load.asked * 0.98)
      _ <- short.traverse_(s =>
        shell.warn(
          f"step ${s.index + 1}: achieved ${s.load.achieved}%.0f of the ${s.load.asked} records/s asked for: the " +
            f"broker or this machine could not keep up"))
    } yield
      if (outcome.interrupted) Exit.Interrupted
      else if (outcome.stoppedEarly.nonEmpty || broken.nonEmpty) Exit.Difference
      else Exit.Ok

  private def experiment(o: LatencyOptions, settings: ConnectionSettings, plan: LatencyPlan, watched: List[(Long, String)], format: OutputFormat,
                         shell: Shell): IO[LatencyOutcome] = {
    // Services get at least 10 s to answer: a probe timeout of 1 s must not make a slow registry look down.
    val services = o.timeout max 10.seconds
    val strategy = o.strategy.getOrElse(SubjectNameStrategy.TopicRecord)
    val onProbe = (p: ProbeResult) =>
      (if (format == OutputFormat.Json) shell.println(p.json.noSpaces) else IO.unit) >>
        (if (p.outcome != ProbeOutcome.Confirmed) shell.warn(p.line) else if (shell.stderrIsTerminal) shell.info(s"latency: ${p.line}") else IO.unit)
    val onStep =
      (i: Int, rate: Int) => shell.info(s"latency: step ${i + 1}/${o.steps.size}: $rate records/s of extra load for ${o.stepDuration.toSeconds} s")
    val load: Resource[IO, Option[LoadGenerator]] =
      if (o.steps.forall(_ == 0)) Resource.pure(None)
      else LoadGenerator.resource(settings,
        LoadSpec(o.loadKind, o.heartbeatTopic, o.commandsTopic, o.feedbackTopic, learn = true, startBeat = 1,
          failShare = 0.1, register = false, seed = System.nanoTime(), strategy), services).map(Some(_))
    (Interrupt.onCtrlC, RegistryClient.resource(settings, services)).tupled.use { case (ctrlC, registry) =>
      for {
        _ <- KafkaClients.partitionCounts(settings.kafka, List(o.commandsTopic, o.feedbackTopic, o.balanceTopic), services,
          Some(Doing.writing(List(o.commandsTopic)).andReading(List(o.feedbackTopic, o.balanceTopic))))
        creationId <- RecordSchemaId[ConfirmAccountCreation](registry, strategy, o.commandsTopic, register = false)
        transferId <- RecordSchemaId[ConfirmMoneyTransfer](registry, strategy, o.commandsTopic, register = false)
        outcome <- (ProbeWatcher.resource(settings.kafka, o.feedbackTopic, o.balanceTopic, new RecordDecoder(new SchemaResolver(registry)), services),
          // Probes go out at once, not lingering for a batch as the load's records do.
          ChunkProducer.resource(settings.kafka, services, _.withLinger(Duration.Zero))).tupled.use { case (watcher, producer) =>
          val prober = new Prober(producer, o.commandsTopic, creationId, transferId, watcher, o.timeout)
          for {
            iban <- o.account.fold(shell.info("latency: opening a probe account") >> prober.createAccount)(IO.pure)
            _ <- shell.info(s"latency: probing account $iban")
            _ <- watcher.watchAccount(iban)
            poller = if (plan.measures.contains(Measure.Db)) BalancePoller.resource(settings.database, iban, services).map(Some(_))
            else Resource.pure[IO, Option[BalancePoller]](None)
            outcome <- (poller, load, KafkaClients.javaAdmin(settings.kafka, services)).tupled.use { case (db, generator, admin) =>
              ProcessWatch(watched, ConsumerGroups.lag(admin, o.group)).flatMap { watch =>
                new LatencyRun(plan, prober, iban, db, generator, watch, watcher.failure).run(ctrlC, onProbe, onStep)
              }
            }
          } yield outcome
        }
      } yield outcome
    }.adaptError(KafkaClients.denied(settings.kafka, Doing.writing(List(o.commandsTopic)))).adaptError(KafkaClients.unreachable(settings.kafka,
        services))
  }

  val job: Job = Job(
    "latency",
    "The original experiment: end-to-end latency of a probe deposit every second while the background load rises step by step, with a chart.",
    "bankops latency --load 0,500,1000,2000 --step-duration 30s --chart latency.png --slo p99<100ms",
    LatencyOptions.opts.map(o => run(o) _)
  )
}

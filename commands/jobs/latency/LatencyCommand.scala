package bankops.jobs.latency

import cats.effect.{IO, Resource}
import cats.syntax.all._
import io.circe.Json

import scala.concurrent.duration._

import bankops.base.{Exit, Interrupt, Job, OutputFormat, Rendered, Shell, Shown}
import bankops.services.bank.{ConfirmAccountCreation, ConfirmMoneyTransfer}
import bankops.services.config.{ConnectionSettings, Connections, SandboxConnection, Source}
import bankops.services.contracts.SubjectNameStrategy
import bankops.services.kafka.{ChunkProducer, ConsumerGroups, Doing, KafkaClients}
import bankops.services.load.{LoadGenerator, LoadSpec}
import bankops.services.records.RecordDecoder
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

  /** The experiment, and its chart when `--chart` asks for one: the steps measured, for the CLI or a caller to report.
    * Probes print as JSON lines when the output is JSON; failed probes are warnings.
    */
  def measure(o: LatencyOptions, shell: Shell): IO[LatencyOutcome] =
    for {
      settings <- Connections.load(o.flags, shell)
      chart <- o.reporting.chart.traverse(ChartFile.check(_, o.reporting.overwrite))
      useDb = o.db.getOrElse(settings.database.url.source != Source.Default)
      pids <- if (o.watchPids.nonEmpty) IO.pure(o.watchPids) else sandboxHandler(o, settings, shell)
      watched <- ProcessWatch.targets(pids)
      t = o.schedule
      plan = LatencyPlan(t, List(Measure.Feedback, Measure.Balance) ++ (if (useDb) List(Measure.Db) else Nil), sampleEvery = 2.seconds)
      format = OutputFormat.resolve(o.reporting.output, shell)
      _ <- shell.info(
        s"latency: ${t.steps.size} steps of ${o.loadKind.name} load (${t.steps.mkString(", ")} records/s), ${t.stepDuration.toSeconds} s each; " +
          s"a probe every ${t.interval.toMillis} ms, timeout ${t.timeout.toMillis} ms" +
          (if (t.warmUp > Duration.Zero) s", after ${t.warmUp.toMillis} ms of warm-up probes reported apart" else "") +
          (if (o.floor) "; Kafka's exactly-once floor first, on the same cluster" else "") +
          (if (watched.isEmpty) "" else s"; watching ${watched.map { case (pid, name) => s"$name (pid $pid)" }.mkString(", ")}"))
      outcome <- experiment(o, settings, plan, watched, format, shell)
      _ <- (chart, o.reporting.chart).tupled.traverse_ { case (f, path) =>
        ChartFile.write(path, o.reporting.overwrite,
          LatencyChart.render(outcome.steps, t.timeout.toNanos / 1e6, "end-to-end latency against extra load", f, outcome.floor.map(_.steps))) >>
          shell.info(s"latency: chart written to $path")
      }
    } yield outcome

  /** The one renderer: the steps (with the floor's beside them), broken SLOs, why a run stopped early, the job summary
    * with its chart, and steps whose load fell short. A run the floor ended shows the floor's steps alone.
    */
  def render(o: LatencyOptions, outcome: LatencyOutcome): Shown = {
    val floor = outcome.floor.toList.flatMap(f => f.warmUp.toList ++ f.steps)
    val steps = outcome.warmUp.toList ++ outcome.steps
    val results =
      if (steps.isEmpty && floor.nonEmpty)
        Rendered.result(floor.map(LatencyReport.floorJson), "Kafka's exactly-once floor:\n" + LatencyReport.table(floor))
      else Rendered.result(steps.map(LatencyReport.json(_, floor)), LatencyReport.table(steps, floor))
    val broken = for { s <- outcome.steps; slo <- o.reporting.slos; why <- slo.broken(s) } yield why
    val during = if (outcome.floor.exists(_.interrupted)) "Kafka's exactly-once floor (the handler was not measured)"
    else if (outcome.steps.isEmpty) "the warm-up" else s"step ${outcome.steps.size}"
    val short = (outcome.floor.toList.flatMap(_.steps).map("floor " -> _) ++ outcome.steps.map("" -> _)).filter { case (_, s) =>
      s.load.asked > 0 && s.seconds >= 2 && s.load.achieved < s.load.asked * 0.98
    }
    Shown(o.reporting.output,
      results ++
        Rendered.all(broken.map(b => Rendered.note(s"latency: SLO $b"))) ++
        Rendered.all(outcome.stoppedEarly.toList.map(why => Rendered.note(s"latency: $why"))) ++
        Rendered.note(s"latency: interrupted (Ctrl-C) during $during: the steps so far are reported, the probes in flight were waited for")
          .when(outcome.interrupted) ++
        Rendered.summary(LatencyReport.stepSummary(outcome.steps, broken, outcome.stoppedEarly, outcome.interrupted, o.reporting.slos,
            o.reporting.chart, floor)) ++
        Rendered.summaryMarkdown(LatencyReport.mermaid(outcome.steps)).when(outcome.steps.nonEmpty) ++
        Rendered.all(short.map { case (of, s) =>
          Rendered.warning(f"${of}step ${s.index + 1}: achieved ${s.load.achieved}%.0f of the ${s.load.asked} records/s asked for: the " +
            f"broker or this machine could not keep up")
        }),
      if (outcome.interrupted) Exit.Interrupted
      else if (outcome.stoppedEarly.nonEmpty || broken.nonEmpty) Exit.Difference
      else Exit.Ok)
  }

  private def experiment(o: LatencyOptions, settings: ConnectionSettings, plan: LatencyPlan, watched: List[(Long, String)], format: OutputFormat,
                         shell: Shell): IO[LatencyOutcome] = {
    val t = o.topics
    // Services get at least 10 s to answer: a probe timeout of 1 s must not make a slow registry look down.
    val services = o.schedule.timeout max 10.seconds
    val strategy = o.strategy.getOrElse(SubjectNameStrategy.TopicRecord)
    // The floor's probes are JSON lines of their own type, so a reader counting the handler's probes is not misled.
    def onProbe(of: String) = (p: ProbeResult) =>
      (if (format != OutputFormat.Json) IO.unit
       else shell.println((if (of.isEmpty) p.json else p.json.deepMerge(Json.obj("type" -> Json.fromString("floor-probe")))).noSpaces)) >>
        (if (p.outcome != ProbeOutcome.Confirmed) shell.warn(s"$of${p.line}")
         else if (shell.stderrIsTerminal) shell.info(s"latency: $of${p.line}") else IO.unit)
    def onStep(of: String) = (i: Int, rate: Int) =>
      shell.info(s"latency: ${of}step ${i + 1}/${o.schedule.steps.size}: $rate records/s of extra load for ${o.schedule.stepDuration.toSeconds} s")
    // The floor's load is the handler's, byte for byte, sent to the floor's topic (no learning: nothing answers there).
    def load(to: Option[String]): Resource[IO, Option[LoadGenerator]] =
      if (o.schedule.steps.forall(_ == 0)) Resource.pure(None)
      else LoadGenerator.resource(settings,
        LoadSpec(o.loadKind, seed = System.nanoTime(), bank = t, learn = to.isEmpty, strategy = strategy), services, to).map(Some(_))
    (Interrupt.onCtrlC, RegistryClient.resource(settings, services)).tupled.use { case (ctrlC, registry) =>
      for {
        _ <- KafkaClients.partitionCounts(settings.kafka, List(t.commands, t.feedback, t.balance), services,
          Some(Doing.writing(List(t.commands)).andReading(List(t.feedback, t.balance))))
        creationId <- RecordSchemaId[ConfirmAccountCreation](registry, strategy, t.commands, register = false)
        transferId <- RecordSchemaId[ConfirmMoneyTransfer](registry, strategy, t.commands, register = false)
        outcome <- (ProbeWatcher.resource(settings.kafka, t.feedback, t.balance, new RecordDecoder(new SchemaResolver(registry)), services),
          // Probes go out at once, not lingering for a batch as the load's records do.
          ChunkProducer.resource(settings.kafka, services, _.withLinger(Duration.Zero))).tupled.use { case (watcher, producer) =>
          val prober = new Prober(producer, t.commands, creationId, transferId, watcher, o.schedule.timeout)
          for {
            // The account first: a handler that does not answer is found before the floor's minutes are spent.
            iban <- o.account.fold(shell.info("latency: opening a probe account") >> prober.createAccount)(IO.pure)
            floor <- if (!o.floor) IO.none[LatencyOutcome]
            else floorRun(o, settings, plan, prober.deposit(iban), load, ctrlC, onProbe("floor "), onStep("floor: "), services, shell).map(Some(_))
            outcome <- if (floor.exists(f => f.interrupted || f.stoppedEarly.nonEmpty))
              IO.pure(LatencyOutcome(Nil, Vector.empty, floor.flatMap(_.stoppedEarly).map(w => s"Kafka's exactly-once floor $w"),
                  floor.exists(_.interrupted), floor = floor))
            else for {
              _ <- shell.info(s"latency: probing account $iban")
              _ <- watcher.watchAccount(iban)
              poller = if (plan.measures.contains(Measure.Db)) BalancePoller.resource(settings.database, iban, services).map(Some(_))
              else Resource.pure[IO, Option[BalancePoller]](None)
              handler <- (poller, load(None), KafkaClients.javaAdmin(settings.kafka, services)).tupled.use { case (db, generator, admin) =>
                ProcessWatch(watched, ConsumerGroups.lag(admin, o.group)).flatMap { watch =>
                  new LatencyRun(plan, prober.probe(_, _, iban, db), db, generator, watch, watcher.failure).run(ctrlC, onProbe(""), onStep(""))
                }
              }
            } yield handler.copy(floor = floor)
          } yield outcome
        }
      } yield outcome
    }.adaptError(KafkaClients.denied(settings.kafka, Doing.writing(List(t.commands)))).adaptError(KafkaClients.unreachable(settings.kafka,
        services))
  }

  /** Kafka's exactly-once floor on this cluster ([[FloorRelay]]), with the handler's plan and load: scratch topics shaped
    * as the commands topic, removed at the end whatever happens.
    */
  private def floorRun(o: LatencyOptions, settings: ConnectionSettings, plan: LatencyPlan, deposit: java.util.UUID => Array[Byte],
                       load: Option[String] => Resource[IO, Option[LoadGenerator]], ctrlC: IO[Unit], onProbe: ProbeResult => IO[Unit],
                       onStep: (Int, Int) => IO[Unit], services: FiniteDuration, shell: Shell): IO[LatencyOutcome] =
    KafkaClients.javaAdmin(settings.kafka, services).use { admin =>
      FloorTopics.resource(admin, o.topics.commands, shell).use { topics =>
        val floorPlan = plan.copy(measures = List(Measure.Feedback))
        (FloorRelay.resource(settings.kafka, topics, MaxBatch, services),
          FloorProber.resource(settings.kafka, topics, deposit, o.schedule.timeout, services),
          load(Some(topics.in))).tupled.use { case (relay, prober, generator) =>
          shell.info(s"latency: floor: relaying ${topics.in} to ${topics.out} in transactions (group and transactional id ${topics.group})") >>
            ProcessWatch(Nil, ConsumerGroups.lag(admin, topics.group)).flatMap { watch =>
              new LatencyRun(floorPlan, prober.probe, None, generator, watch, IO.race(relay, prober.failure).map(_.merge))
                .run(ctrlC, onProbe, onStep)
            }
        }
      }
    }

  /** The handler's default batch (`handler --max-batch`), so the floor's transactions are as large as its batches. */
  private val MaxBatch = 1000

  val job: Job[LatencyOptions, LatencyOutcome] = Job(
    "latency",
    "The original experiment: end-to-end latency of a probe deposit every second while the background load rises step by step, with a chart.",
    "bankops latency --load 0,500,1000,2000 --step-duration 30s --chart latency.png --slo p99<100ms",
    LatencyOptions.opts
  )(measure, render)
}

package bankops

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.parser.parse
import org.apache.kafka.common.TopicPartition

import java.nio.charset.StandardCharsets.UTF_8
import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Flags, Job, OutputFormat, Rendered, Shell, Shown}
import bankops.flags.ConnectionOpts
import bankops.jobs.balances.{BalanceTable, BalancesCommand}
import bankops.jobs.heartbeat.HeartbeatCommand
import bankops.jobs.latency.{LatencyBrief, LatencyReporting, LatencySchedule, LatencyCommand, LatencyOptions}
import bankops.jobs.replay.ReplayCommand
import bankops.jobs.sandbox.{ClientConfig, Identities, Sandbox, SandboxLayout, SandboxSettings}
import bankops.services.bank.{BankNames, BankRules}
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections}
import bankops.services.kafka.{ConsumerGroups, EndOffsets, KafkaClients, ReadSpec, StartAt, StopAt, TopicReader}
import bankops.services.records.RecordDecoder
import bankops.services.registry.{RegistryClient, SchemaResolver}

/** `bankops demo`: the whole bank at work on the local sandbox, every step checked. It brings the sandbox up when it
  * is not running, replays the fixtures and checks each command's feedback against the expected file, runs a short
  * learning command load through the handler, waits for the handler to catch up, validates every balance, times probe
  * deposits with and without extra load (`latency`, with its chart; `--no-latency` skips it), and says
  * in a few lines what happened. Exit 0 only when all of that holds; it can run again and again (the fixtures'
  * commands are then answered from what the bank remembers). Top layer: it runs other jobs, through their typed entry points.
  */
object Demo {
  final case class Options(dir: Option[os.Path], load: Int, rate: Int, timeout: FiniteDuration, chart: Option[os.Path], latency: Boolean,
                           stepDuration: FiniteDuration)

  private val DefaultStep = 10.seconds

  private val opts: Opts[Options] = (
    ConnectionOpts.sandboxDir,
    Flags.positive[Int]("load", "Commands in the learning command load (default 2000).").withDefault(2000),
    Flags.positive[Int]("rate", "Their rate, commands per second (default 1000).").withDefault(1000),
    Flags.duration("timeout", "How long to wait for the handler's answers: seconds, or e.g. 2m (default 120s).").withDefault(120.seconds),
    Opts.option[String]("chart", "Where the short latency run's chart goes (default latency.png beside the sandbox's directory).",
      metavar = "FILE").map(os.Path(_,
        os.pwd)).orNone,
    Opts.flag("no-latency", "Skip the short latency run (about a minute): the fixtures, the load and the balances only.").orFalse,
    Flags.duration("step-duration",
      "How long each of the latency run's four steps lasts (two of Kafka's floor, two of the handler): shorter for a quicker " +
        "demo, longer for steadier figures (default 10s).").orNone
  ).tupled.mapValidated { case (dir, load, rate, timeout, chart, skip, step) =>
    if (skip && chart.isDefined) "--chart: --no-latency makes no chart".invalidNel
    else if (skip && step.isDefined) "--step-duration: --no-latency has no latency steps".invalidNel
    else Options(dir, load, rate, timeout, chart, latency = !skip, stepDuration = step.getOrElse(DefaultStep)).validNel
  }

  private def fail(step: String, detail: String) = IO.raiseError[Nothing](Failure.Difference(s"demo: $step: $detail"))

  /** A job's own failure to reach a service, said as the demo's step that ran it (exit 3 kept). */
  private def step[A](name: String)(run: IO[A]): IO[A] =
    run.adaptError { case f: Failure.Unavailable => Failure.Unavailable(s"demo: $name: ${f.message}", f) }

  /** The end offsets of the feedback and balance topics before the load: where its answers and changes start. */
  private final case class LoadStart(feedback: Map[TopicPartition, Long], changes: Map[TopicPartition, Long])

  /** One answer of the handler: the command's id, the feedback record's simple name, its reason if it failed. */
  private final case class Answer(id: String, record: String, reason: Option[String])

  /** Feedback on the topic after `from`. */
  private def feedbackSince(s: ConnectionSettings, decoder: RecordDecoder, from: Map[TopicPartition, Long]): IO[List[Answer]] =
    TopicReader.open(s.kafka, ReadSpec(List(BankNames.Feedback), None, StartAt.Offsets(from), StopAt.End), 30.seconds).use { case (_, records) =>
      records.chunks.evalMap(decoder.decodeChunk).flatMap(fs2.Stream.chunk).map { d =>
        val e = d.envelope
        Answer(e.key.map(new String(_, UTF_8)).getOrElse(""), e.record.getOrElse("?").stripPrefix("nl.openweb.data."),
          e.value.flatMap(_.hcursor.get[String]("reason").toOption))
      }.compile.toList
    }

  private def countSince(s: ConnectionSettings, topic: String, from: Map[TopicPartition, Long]): IO[Long] =
    KafkaClients.javaAdmin(s.kafka, 30.seconds).use(EndOffsets.of(_, topic)).map(end => end.map { case (tp, o) => o - from.getOrElse(tp, 0L) }.sum)

  private def awaitUntil[A](within: FiniteDuration, what: String)(read: IO[A])(done: A => Boolean): IO[A] =
    (read, IO.monotonic).tupled.flatMap { case (first, start) =>
      def loop(a: A): IO[A] =
        if (done(a)) IO.pure(a)
        else IO.monotonic.flatMap(now =>
          if (now - start > within) fail("waiting", s"$what within ${within.toSeconds} s") else IO.sleep(500.millis) >> read.flatMap(loop))
      loop(first)
    }

  /** The fixtures' other banks' accounts that an account of this bank holds: a sandbox whose handler drew one before
    * that range was reserved ([[BankRules.OutsideFrom]]). The fixtures' payments to and from it would be answered
    * otherwise, so the demo says why before it sends them.
    */
  private def heldOutside(settings: ConnectionSettings, fixtures: os.Path): IO[List[String]] =
    IO.blocking(os.read.lines(fixtures)).flatMap { lines =>
      val outside = lines.flatMap(l => parse(l).toOption).flatMap { j =>
        List("from", "to").flatMap(k => j.hcursor.downField("value").get[String](k).toOption)
      }.filter(BankRules.isOutside).distinct
      // Read as `balances validate` reads the table: one read-only query, no SQL of the demo's own.
      BalanceTable.open(settings.database, BankNames.BalanceTable, 30.seconds).use(_.some(outside.toSet)).map(_.keys.toList.sorted)
    }

  private def kinds(answers: List[Answer]): String =
    answers.groupBy(_.record).toList.sortBy(_._1).map { case (record, as) => s"$record ${as.size}" }.mkString(", ")

  /** What a demo that held came to: how long it took. Any step that did not hold ends it with that step's failure. */
  final case class Report(took: FiniteDuration)

  def run(o: Options, operator: Shell): IO[Report] = {
    // The demo runs on the local sandbox: no variable of the operator's shell may point it at another cluster.
    val shell = operator.copy(env = operator.env -- ConnectionFlags.Variables)
    val layout = SandboxLayout(Connections.sandboxDir(o.dir, shell))
    val sandbox = new Sandbox(layout, shell, SandboxProvision.applyTopology)
    for {
      started <- IO.monotonic
      services <- sandbox.status()
      up = services.forall(_.up)
      _ <- if (up) shell.info(s"demo: the sandbox is running (${services.map(_.service).mkString(", ")})")
      else shell.info("demo: starting the sandbox") >>
        IO.fromEither(SandboxSettings.fromEnv(shell.env).left.map(Failure.BadInput(_)))
          .flatMap(asked => sandbox.up(asked.settings, keepShape = !asked.brokersGiven)).void
      settings <- Connections.load(ConnectionFlags(sandboxDir = Some(layout.dir), useContexts = false), shell)
      _ <- RegistryClient.resource(settings, 30.seconds).use(registry =>
        steps(o, shell, layout, settings, new RecordDecoder(new SchemaResolver(registry))))
      done <- IO.monotonic
    } yield Report(done - started)
  }

  /** One expected answer of the fixtures: its record, reason and how often the command is sent. */
  private final case class Expected(record: String, reason: Option[String], count: Int)

  private def expected(file: os.Path): IO[Map[String, Expected]] =
    IO.blocking(os.read.lines(file)).flatMap(_.filter(_.trim.nonEmpty).toList.traverse { line =>
      IO.fromEither(parse(line).flatMap { j =>
        val c = j.hcursor
        (c.get[String]("id"), c.get[String]("record")).mapN((id, record) =>
          id -> Expected(record, c.get[String]("reason").toOption, c.get[Int]("count").getOrElse(1)))
      }.left.map(e => Failure.BadInput(s"$file: ${e.getMessage}")))
    }).map(_.toMap)

  /** Fixtures, load, validation: each step fails the demo (exit 1, or 3 for a service) naming what did not hold. */
  private def steps(o: Options, shell: Shell, layout: SandboxLayout, settings: ConnectionSettings, decoder: RecordDecoder): IO[Unit] = {
    // Each step as the identity that job has in the sandbox, holding only the ACLs the topology grants it.
    def as(identity: String) =
      ConnectionFlags(sandboxDir = Some(layout.dir), commandConfig = Some(ClientConfig.file(layout, identity, scram = false)), useContexts = false)
    val (loader, reader) = (as(Identities.Loader), as(Identities.Reader))
    val fixtures = shell.home / "fixtures" / "commands.jsonl"
    for {
      want <- expected(shell.home / "fixtures" / "expected-feedback.jsonl")
      held <- step("reading the bank's accounts")(heldOutside(settings, fixtures))
      _ <- if (held.isEmpty) IO.unit
      else fail("fixtures",
        s"this sandbox's bank holds ${held.mkString(", ")}, which the fixtures use as another bank's account " +
          s"(its handler drew it before numbers from ${BankRules.iban(BankRules.OutsideFrom)} were reserved): " +
          "start from a fresh sandbox with 'bankops sandbox down --wipe'")
      // 1. The fixtures: every command answered as the expected file says, as often as it was sent.
      before <- KafkaClients.javaAdmin(settings.kafka, 30.seconds).use(EndOffsets.of(_, BankNames.Feedback))
      sent <-
        step("replaying the fixtures")(Shell.captured(shell)(ReplayCommand.replay(ReplayCommand.fileToTopic(loader, fixtures, BankNames.Commands),
              _)))
      _ <- IO.raiseUnless(sent.result.code == Exit.Ok)(Failure.Unavailable(s"demo: replaying $fixtures failed: ${sent.lastLines(3)}"))
      answered <-
        awaitUntil(o.timeout, s"the handler's answers to the ${want.size} fixture commands")(feedbackSince(settings, decoder, before)) { fs =>
          val got = fs.groupBy(_.id)
          want.forall { case (id, e) => got.get(id).exists(_.size >= e.count) }
        }
      wrong = answered.filter(a => want.contains(a.id)).groupBy(_.id).toList.flatMap { case (id, as) =>
        val e = want(id)
        def said(record: String, reason: Option[String]) = record + reason.fold("")(r => s" ($r)")
        val got = as.map(a => said(a.record, a.reason))
        if (got.distinct == List(said(e.record, e.reason)) && got.size == e.count) None
        else Some(s"$id: expected ${said(e.record, e.reason)} x${e.count}, got ${got.mkString(", ")}")
      }
      _ <- if (wrong.nonEmpty) fail("fixtures", s"${wrong.size} commands answered otherwise than expected, e.g. ${wrong.take(3).mkString("; ")}")
      else IO.unit
      ours = answered.filter(a => want.contains(a.id))
      _ <- shell.info(s"demo: fixtures: ${ours.size} answers to ${want.size} commands, each as expected: ${kinds(ours)}")
      // 2. A learning command load through the handler.
      // Where the load's answers start, both topics asked through one client.
      from <- KafkaClients.javaAdmin(settings.kafka, 30.seconds).use(a =>
        (EndOffsets.of(a, BankNames.Feedback), EndOffsets.of(a, BankNames.BalanceChanged)).mapN(LoadStart.apply))
      load <-
        step("the command load")(Shell.captured(shell)(HeartbeatCommand.generate(HeartbeatCommand.Options.commands(loader, o.load.toLong, o.rate),
              _)))
      _ <- IO.raiseUnless(load.result.summary.errors == 0 && !load.result.interrupted)(
        Failure.Unavailable(s"demo: the command load failed: ${load.lastLines(3)}"))
      _ <-
        awaitUntil(o.timeout, s"the handler's answers to the ${o.load} commands of the load")(countSince(settings, BankNames.Feedback,
            from.feedback))(
          _ >= o.load)
      lag <- awaitUntil(o.timeout, "the handler to catch up")(
        KafkaClients.javaAdmin(settings.kafka, 30.seconds).use(ConsumerGroups.lag(_, BankNames.HandlerGroup)))(_.contains(0L))
      feedback <- feedbackSince(settings, decoder, from.feedback)
      changes <- countSince(settings, BankNames.BalanceChanged, from.changes)
      _ <- shell.info(
        s"demo: command load: ${o.load} commands at ${o.rate}/s, ${feedback.size} answers (${kinds(feedback)}), $changes balance changes; " +
          s"handler lag ${lag.getOrElse(0L)}")
      // 3. Every account's chain against the database.
      validated <-
        step("balances")(Shell.captured(shell)(BalancesCommand.validate(BalancesCommand.Options.defaults(reader).copy(settle = Some(10.seconds)), _)))
      report = validated.result
      _ <- shell.info(
        s"demo: balances: ${report.accountsChecked} accounts checked against ${report.events} balance changes, findings: ${report.findings.size}")
      _ <- if (report.findings.nonEmpty) fail("balances", report.findings.take(3).map(f => s"${f.kind} ${f.iban}: ${f.detail}").mkString(" | "))
      else IO.unit
      // 4. The original experiment in brief: probe latency without and with extra load, and its chart.
      _ <- if (o.latency) latency(o, shell, layout, as(Identities.Operator)) else shell.info("demo: latency: skipped (--no-latency)")
    } yield ()
  }

  /** The original experiment in brief: probe latency without and with extra load, Kafka's floor beside, and its chart. */
  private def latency(o: Options, shell: Shell, layout: SandboxLayout, operator: ConnectionFlags): IO[Unit] = {
    val chart = o.chart.getOrElse(layout.dir / os.up / "latency.png")
    // The demo's chart is its own: each run replaces the last one's (never a directory, link or device).
    // Warm figures only when measured warm: probes first (reported apart) until two windows of them agree, at most
    // 30 s, for the JIT and the brokers; the line says which it was. Then a probe every 100 ms, 100 a 10 s step, so a
    // p99 is not simply the slowest of five. Of the probes, 50 may time out: the probes of 5 s. A machine busy elsewhere
    // delays commands for seconds, timing out every probe sent meanwhile (a limit of ten ended two of the test suite's
    // runs); a handler that is gone answers none and still ends the run within 10 s. Kafka's own exactly-once floor is
    // measured first on the same cluster, so the figures read as a ratio, not only absolutes on a small machine.
    // As the operator: the floor creates its scratch topics and runs a transactional relay, which no service identity may.
    val latencyOptions = LatencyOptions.defaults(operator).copy(
      schedule = LatencySchedule(steps = List(0, 500), stepDuration = o.stepDuration, interval = 100.millis, timeout = 5.seconds, maxTimeouts = 50,
        warmUp = 30.seconds, settle = true),
      reporting = LatencyReporting(Some(OutputFormat.Table), Some(chart), overwrite = true, slos = Nil), floor = true)
    step("latency")(Shell.captured(shell)(LatencyCommand.measure(latencyOptions, _))).flatMap { latency =>
      val outcome = latency.result
      // The last timed-out probes' lines say which answers were missing (feedback, balance change, database) and when.
      val lastProbes = outcome.probes.filter(_.timedOut).takeRight(2).map(p => s"${p.line}, sent ${p.sentAt}").mkString(" | ")
      outcome.stoppedEarly.traverse_(why => fail("latency", s"$why; the last: $lastProbes")) >>
        (if (outcome.interrupted) fail("latency", "interrupted") else IO.unit) >>
        shell.info(s"demo: ${LatencyBrief.line(outcome)}" + (if (lastProbes.nonEmpty) s", the last: $lastProbes" else "") + s"; chart $chart")
    }
  }

  val job: Job[Options, Report] = Job(
    "demo",
    "The whole bank at work on the local sandbox, checked: fixtures through the handler, a learning command load, " +
      "every balance validated, a short latency run with its chart.",
    "bankops demo",
    opts
  )(run, (_, r) => Shown(None, Rendered.note(f"demo: ok in ${r.took.toMillis / 1000.0}%.1f s"), Exit.Ok))
}

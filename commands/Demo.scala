package bankops

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json
import io.circe.parser.parse
import org.apache.kafka.common.TopicPartition

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8
import scala.concurrent.duration._

import bankops.base.{Cli, Failure, Job, Shell}
import bankops.jobs.sandbox.{HandlerService, Sandbox, SandboxLayout}
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections}
import bankops.services.kafka.{ConsumerGroups, EndOffsets, KafkaClients, ReadSpec, RecordDecoder, StartAt, StopAt, TopicReader}
import bankops.services.registry.{RegistryClient, SchemaResolver}

/** `bankops demo`: the whole bank at work on the local sandbox, every step checked. It brings the sandbox up when it
  * is not running, replays the fixtures and checks each command's feedback against the expected file, runs a short
  * learning command load through the handler, waits for the handler to catch up, validates every balance, times probe
  * deposits with and without extra load (`latency`, with its chart), and says
  * in a few lines what happened. Exit 0 only when all of that holds; it can run again and again (the fixtures'
  * commands are then answered from what the bank remembers). Top layer: it runs other jobs.
  */
object Demo {
  final case class Options(dir: Option[os.Path], load: Int, rate: Int, timeout: FiniteDuration, chart: Option[os.Path])

  private val opts: Opts[Options] = (
    ConnectionFlags.sandboxDir,
    Opts.option[Int]("load", "Commands in the learning command load (default 2000).", metavar = "N")
      .mapValidated(n => if (n > 0) n.validNel else s"--load must be positive, not $n".invalidNel).withDefault(2000),
    Opts.option[Int]("rate", "Their rate, commands per second (default 1000).", metavar = "N")
      .mapValidated(n => if (n > 0) n.validNel else s"--rate must be positive, not $n".invalidNel).withDefault(1000),
    Opts.option[Int]("timeout", "Seconds to wait for the handler's answers (default 120).", metavar = "SECONDS")
      .mapValidated(s => if (s > 0) s.validNel else s"--timeout must be positive, not $s".invalidNel).withDefault(120).map(_.seconds),
    Opts.option[String]("chart", "Where the short latency run's chart goes (default .bankops/latency.png).", metavar = "FILE").map(os.Path(_, os.pwd)).orNone
  ).mapN(Options.apply)

  private val Commands = "commands"
  private val Feedback = "command_feedback"
  private val Balance = "balance_changed"

  /** Runs a job in this JVM with its output captured: (exit code, stdout, stderr). */
  private def job(shell: Shell, args: String*): IO[(Int, String, String)] = IO.defer {
    val (out, err) = (new ByteArrayOutputStream(), new ByteArrayOutputStream())
    val quiet = shell.copy(out = new PrintStream(out, true, "UTF-8"), err = new PrintStream(err, true, "UTF-8"), stdoutIsTerminal = false, stderrIsTerminal = false)
    Cli.run(args.toList, quiet, Jobs.all).map(c => (c.code, new String(out.toByteArray, UTF_8), new String(err.toByteArray, UTF_8)))
  }

  private def fail(step: String, detail: String) = IO.raiseError[Nothing](Failure.Difference(s"demo: $step: $detail"))

  /** Feedback on the topic after `from`: (command id, record simple name, reason). */
  private def feedbackSince(s: ConnectionSettings, decoder: RecordDecoder, from: Map[TopicPartition, Long]): IO[List[(String, String, Option[String])]] =
    TopicReader.open(s.kafka, ReadSpec(List(Feedback), None, StartAt.Offsets(from), StopAt.End), 30.seconds).use { case (_, records) =>
      records.chunks.evalMap(decoder.decodeChunk).flatMap(fs2.Stream.chunk).map { d =>
        val e = d.envelope
        (e.key.map(new String(_, UTF_8)).getOrElse(""), e.record.getOrElse("?").stripPrefix("nl.openweb.data."),
          e.value.flatMap(_.hcursor.get[String]("reason").toOption))
      }.compile.toList
    }

  private def countSince(s: ConnectionSettings, topic: String, from: Map[TopicPartition, Long]): IO[Long] =
    KafkaClients.javaAdmin(s.kafka, 30.seconds).use(EndOffsets.of(_, topic)).map(end => end.map { case (tp, o) => o - from.getOrElse(tp, 0L) }.sum)

  private def awaitUntil[A](within: FiniteDuration, what: String)(read: IO[A])(done: A => Boolean): IO[A] =
    (read, IO.monotonic).tupled.flatMap { case (first, start) =>
      def loop(a: A): IO[A] =
        if (done(a)) IO.pure(a)
        else IO.monotonic.flatMap(now => if (now - start > within) fail("waiting", s"$what within ${within.toSeconds} s") else IO.sleep(500.millis) >> read.flatMap(loop))
      loop(first)
    }

  private def kinds(fs: List[(String, String, Option[String])]): String =
    fs.groupBy(_._2).toList.sortBy(_._1).map { case (k, v) => s"$k ${v.size}" }.mkString(", ")

  def run(o: Options)(shell: Shell): IO[ExitCode] = {
    val layout = SandboxLayout(Connections.sandboxDir(o.dir, shell))
    for {
      started <- IO.monotonic
      up <- new Sandbox(layout, shell).status.map(_.forall(_.up))
      _ <- if (up) shell.info("demo: the sandbox is running (postgres, kafka, registry, handler)")
           else shell.info("demo: starting the sandbox") >> Cli.run(List("sandbox", "up", "--sandbox-dir", layout.dir.toString), shell, Jobs.all).flatMap(c =>
             IO.raiseUnless(c == ExitCode.Success)(Failure.Unavailable("demo: the sandbox did not start (see above)")))
      settings <- Connections.load(ConnectionFlags(sandboxDir = Some(layout.dir)), shell)
      _ <- RegistryClient.resource(settings, 30.seconds).use(registry => steps(o, shell, layout, settings, new RecordDecoder(new SchemaResolver(registry))))
      done <- IO.monotonic
      _ <- shell.info(f"demo: ok in ${(done - started).toMillis / 1000.0}%.1f s")
    } yield ExitCode.Success
  }

  /** Fixtures, load, validation: each step fails the demo (exit 1, or 3 for a service) naming what did not hold. */
  private def steps(o: Options, shell: Shell, layout: SandboxLayout, settings: ConnectionSettings, decoder: RecordDecoder): IO[Unit] = {
    val dirArgs = List("--sandbox-dir", layout.dir.toString)
    val fixtures = shell.home / "fixtures" / "commands.jsonl"
    val expectedFile = shell.home / "fixtures" / "expected-feedback.jsonl"
    for {
      expected <- IO.blocking(os.read.lines(expectedFile).filter(_.trim.nonEmpty).map(l => parse(l).fold(throw _, identity)).toList)
      want = expected.map { j => val c = j.hcursor
               (c.get[String]("id").toOption.get, (c.get[String]("record").toOption.get, c.get[String]("reason").toOption, c.get[Int]("count").getOrElse(1)))
             }.toMap
      // 1. The fixtures: every command answered as the expected file says, as often as it was sent.
      before <- KafkaClients.javaAdmin(settings.kafka, 30.seconds).use(EndOffsets.of(_, Feedback))
      sent <- job(shell, ("replay" :: "--from-file" :: fixtures.toString :: "--to-topic" :: Commands :: dirArgs): _*)
      _ <- IO.raiseUnless(sent._1 == 0)(Failure.Unavailable(s"demo: replaying $fixtures failed: ${sent._3.trim}"))
      answered <- awaitUntil(o.timeout, s"the handler's answers to the ${want.size} fixture commands")(feedbackSince(settings, decoder, before)) { fs =>
                    val got = fs.groupBy(_._1)
                    want.forall { case (id, (_, _, n)) => got.get(id).exists(_.size >= n) }
                  }
      wrong = answered.filter(f => want.contains(f._1)).groupBy(_._1).toList.flatMap { case (id, fs) =>
                val (record, reason, n) = want(id)
                val got = fs.map(f => (f._2, f._3))
                if (got.distinct == List((record, reason)) && got.size == n) None else Some(s"$id: expected $record${reason.fold("")(r => s" ($r)")} x$n, got ${got.mkString(", ")}")
              }
      _ <- if (wrong.nonEmpty) fail("fixtures", s"${wrong.size} commands answered otherwise than expected, e.g. ${wrong.take(3).mkString("; ")}") else IO.unit
      ours = answered.filter(f => want.contains(f._1))
      _ <- shell.info(s"demo: fixtures: ${ours.size} answers to ${want.size} commands, each as expected: ${kinds(ours)}")
      // 2. A learning command load through the handler.
      loadFrom <- KafkaClients.javaAdmin(settings.kafka, 30.seconds).use(a => (EndOffsets.of(a, Feedback), EndOffsets.of(a, Balance)).tupled)
      load <- job(shell, ("heartbeat" :: "--kind" :: "commands" :: "--count" :: o.load.toString :: "--rate" :: o.rate.toString :: "-o" :: "json" :: dirArgs): _*)
      _ <- IO.raiseUnless(load._1 == 0)(Failure.Unavailable(s"demo: the command load failed: ${load._3.trim}"))
      loadAnswers <- awaitUntil(o.timeout, s"the handler's answers to the ${o.load} commands of the load")(countSince(settings, Feedback, loadFrom._1))(_ >= o.load)
      lag <- awaitUntil(o.timeout, "the handler to catch up")(KafkaClients.javaAdmin(settings.kafka, 30.seconds).use(ConsumerGroups.lag(_, HandlerService.Group)))(_.contains(0L))
      feedback <- feedbackSince(settings, decoder, loadFrom._1)
      changes <- countSince(settings, Balance, loadFrom._2)
      _ <- shell.info(s"demo: command load: ${o.load} commands at ${o.rate}/s, ${feedback.size} answers (${kinds(feedback)}), $changes balance changes; handler lag ${lag.getOrElse(0L)}")
      // 3. Every account's chain against the database.
      validated <- job(shell, ("balances" :: "validate" :: "--settle" :: "10s" :: "-o" :: "json" :: dirArgs): _*)
      summary = validated._2.linesIterator.flatMap(l => parse(l).toOption).flatMap(_.hcursor.downField("summary").focus).toList.lastOption.getOrElse(Json.Null).hcursor
      findings = summary.get[Long]("findings").getOrElse(-1L)
      _ <- shell.info(s"demo: balances: ${summary.get[Long]("accountsChecked").getOrElse(0L)} accounts checked against " +
             s"${summary.get[Long]("events").getOrElse(0L)} balance changes, findings: $findings")
      _ <- if (validated._1 != 0 || findings != 0) fail("balances", s"validation exited ${validated._1}: ${validated._3.trim.linesIterator.toList.takeRight(3).mkString(" | ")}") else IO.unit
      // 4. The original experiment in brief: probe latency without and with extra load, and its chart.
      chart = o.chart.getOrElse(layout.dir / os.up / "latency.png")
      // The demo's chart is its own: each run replaces the last one's (never a directory, link or device).
      latency <- job(shell, ("latency" :: "--load" :: "0,500" :: "--step-duration" :: "5s" :: "--chart" :: chart.toString :: "--overwrite" :: "-o" :: "json" :: dirArgs): _*)
      _ <- if (latency._1 != 0) fail("latency", latency._3.trim.linesIterator.toList.takeRight(3).mkString(" | ")) else IO.unit
      p99s = latency._2.linesIterator.flatMap(l => parse(l).toOption).filter(_.hcursor.get[String]("type").contains("step")).map { j =>
               val c = j.hcursor
               f"${c.downField("latencyMs").downField("feedback").get[Double]("p99").getOrElse(Double.NaN)}%.0f ms at ${c.downField("load").get[Int]("asked").getOrElse(0)}/s"
             }.mkString(", ")
      _ <- shell.info(s"demo: latency: feedback p99 $p99s of extra load; chart $chart")
    } yield ()
  }

  val job: Job = Job(
    "demo",
    "The whole bank at work on the local sandbox, checked: fixtures through the handler, a learning command load, every balance validated, a short latency run with its chart.",
    "bankops demo",
    opts.map(o => run(o) _)
  )
}

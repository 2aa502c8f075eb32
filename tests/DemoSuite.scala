package bankops

import cats.effect.IO
import io.circe.parser.parse

import scala.concurrent.duration._

import bankops.jobs.sandbox.HandlerService
import bankops.services.kafka.{ConsumerGroups, EndOffsets, KafkaClients}
import bankops.services.bank.BankRules
import bankops.support.{BankFixture, IOSuite, SandboxFixture, Setup, TestShell}
import bankops.support.OnSandbox

/** The living bank in the sandbox: its handler answers the fixtures as expected, a learning command load mostly
  * succeeds, the handler can be stopped and started alone, and `demo` runs twice in a row.
  */
class DemoSuite extends IOSuite with OnSandbox {
  // Shared: no other shared test sends to the sandbox's own bank (a refused identity's attempts aside; WorkflowsSuite's
  // latency runs are alone), so the learning load runs beside other suites; stopping the handler runs alone (a
  // workflow's `sandbox up` would start it), and so does the demo, whose latency step is a measurement: beside four other
  // tests (another latency run's load, handlers killed under load) on the two cores, commands reached the sandbox's
  // handler at ~110/s (45 a batch, back to back) against the step's 500/s, and every probe sent then waited past its 5 s.
  override val munitIOTimeout: Duration = 6.minutes

  private def lag: IO[Option[Long]] = SandboxFixture.settings.flatMap(s =>
    KafkaClients.javaAdmin(s.kafka, 30.seconds).use(ConsumerGroups.lag(_, HandlerService.Group)))

  private def caughtUp: IO[Unit] = (IO.sleep(500.millis) >> lag).iterateUntil(_.contains(0L)).void.timeoutTo(2.minutes,
    lag.flatMap(l => IO.raiseError(new AssertionError(s"the sandbox's handler did not catch up within 2 minutes: lag $l"))))

  /** The handler's line of `sandbox status -o json`: up, and its address column (`group G, lag N`). */
  private def handlerStatus(r: TestShell.Result): (Boolean, String) =
    r.outLines.flatMap(l => parse(l).toOption).map(_.hcursor).find(_.get[String]("service").contains("handler"))
      .map(c => (c.get[Boolean]("up").toOption.get, c.get[String]("address").toOption.get))
      .getOrElse(fail(s"no handler line in sandbox status: ${r.out}"))

  /** A failed demo's cause may be in what the sandbox said meanwhile: the handler's figures (its batches' times, every
    * 10 s), and the brokers' warnings and ISR changes (a follower that stops fetching holds every acks=all send).
    */
  private def sandboxSaid: IO[String] = IO.blocking {
    SandboxFixture.logSaid("handler", 4)(_ => true) + (1 to 3).map(b =>
      SandboxFixture.logSaid(s"kafka-$b", 3)(l => l.contains("] WARN ") || l.contains("] ERROR ") || l.contains(" ISR "))).mkString
  }

  test("a learning command load of 3,000: at most the asked share fails, most transfers are confirmed, and every balance validates") {
    for {
      s <- SandboxFixture.settings
      from <- KafkaClients.javaAdmin(s.kafka, 30.seconds).use(EndOffsets.of(_, "command_feedback"))
      _ <- Setup.cli("the learning command load", "heartbeat", "--kind", "commands", "--count", "3000", "--rate", "1500", "--fail-share", "0.1",
        "--seed", "5", "-o", "json")
      _ <- (IO.sleep(500.millis) >> KafkaClients.javaAdmin(s.kafka, 30.seconds).use(EndOffsets.of(_, "command_feedback")))
        .iterateUntil(end => end.map { case (tp, o) => o - from(tp) }.sum >= 3000).timeout(2.minutes)
      _ <- caughtUp
      feedback <- SandboxFixture.cli("inspect", "--topic", "command_feedback", "-o", "json")
      validated <- SandboxFixture.cli("balances", "validate", "--settle", "5s", "-o", "json")
    } yield {
      val records = feedback.outLines.flatMap(l => parse(l).toOption).filter { j =>
        val c = j.hcursor
        (for { p <- c.get[Int]("partition"); o <- c.get[Long]("offset") } yield from.exists { case (tp, f) =>
          tp.partition == p && o >= f
        }).getOrElse(false)
      }.map(_.hcursor.get[String]("record").toOption.get.stripPrefix("nl.openweb.data."))
      val counts = records.groupBy(identity).map { case (k, v) => k -> v.size }
      assertEquals(records.size, 3000, counts.toString)
      val (confirmed, failed) = (counts.getOrElse("MoneyTransferConfirmed", 0), counts.getOrElse("MoneyTransferFailed", 0))
      assert(failed <= (confirmed + failed) * 0.1 + 1, counts.toString)
      assert(confirmed > 2000, counts.toString)
      assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
    }
  }

  test("sandbox stop handler: status says so (exit 3); commands wait; start handler: it answers them and the group's lag returns to 0"
      .tag(OnSandbox.Alone)) {
    val id = java.util.UUID.randomUUID().toString
    val line = s"""{"record": "ConfirmAccountCreation", "key": "$id", "value": {"id": "$id", "a_type": "AUTO"}}"""
    for {
      // Caught up before it stops: the one command sent while it is stopped is then the whole lag.
      _ <- caughtUp
      stop <- SandboxFixture.cli("sandbox", "stop", "handler")
      status <- SandboxFixture.cli("sandbox", "status", "-o", "json")
      file <- IO.blocking(os.temp(line + "\n", suffix = ".jsonl"))
      _ <- Setup.cli("replay a command", "replay", "--from-file", file.toString, "--to-topic", "commands")
      waiting <- SandboxFixture.cli("sandbox", "status", "-o", "json")
      restart <- SandboxFixture.cli("sandbox", "restart", "handler")
      start <- SandboxFixture.cli("sandbox", "start", "handler")
      _ <- caughtUp
      answer <- SandboxFixture.cli("inspect", "--topic", "command_feedback", "--key", id, "-o", "json")
      wrong <- SandboxFixture.cli("sandbox", "stop", "kafka")
    } yield {
      assertEquals(stop.code, 0, stop.err)
      assert(stop.err.contains("handler   stopped"), stop.err)
      assertEquals(status.code, 3, status.out)
      assertEquals(handlerStatus(status), (false, s"group ${HandlerService.Group}, lag 0"), status.out)
      // The command sent while the handler is stopped waits: the group is behind by exactly that one.
      assertEquals(waiting.code, 3, waiting.out)
      assertEquals(handlerStatus(waiting), (false, s"group ${HandlerService.Group}, lag 1"), waiting.out)
      // The hint names the fix for a stopped handler in a running sandbox.
      assertEquals((restart.code, restart.err.trim), (3, "bankops: handler is not running: `bankops sandbox start handler` starts it"))
      assertEquals(start.code, 0, start.err)
      assert(start.err.contains("handler   started"), start.err)
      assert(answer.out.contains("AccountCreationConfirmed"), answer.out + answer.err)
      assertEquals(wrong.code, 2, wrong.err)
    }
  }

  test("a bank holding a fixture's outside account (drawn before that range was reserved): exit 1 naming it and the fix, nothing sent") {
    // The fixtures' first payment from another bank: planted as an account of this bank, as an older handler could draw it.
    val held = os.read.lines(bankops.support.Repo.root / "fixtures" / "commands.jsonl").flatMap(l => parse(l).toOption)
      .flatMap(_.hcursor.downField("value").get[String]("from").toOption).find(BankRules.isOutside).get
    def commandsEnd = SandboxFixture.settings.flatMap(s => KafkaClients.javaAdmin(s.kafka, 30.seconds).use(EndOffsets.of(_, "commands")))
    val plant = (sql: String) =>
      SandboxFixture.settings.flatMap(s => BankFixture.withDb(s.database.url.value)(_.createStatement().execute(sql)))
    for {
      before <- commandsEnd
      run <- plant(s"INSERT INTO balance (iban, token, type) VALUES ('$held', 't', 'AUTO')").bracket(_ => SandboxFixture.cli("demo"))(_ =>
        plant(s"DELETE FROM balance WHERE iban = '$held'").void)
      after <- commandsEnd
    } yield {
      assertEquals(run.code, 1, run.err)
      assert(
        run.err.contains(s"demo: fixtures: this sandbox's bank holds $held, which the fixtures use as another bank's account") &&
          run.err.contains("bankops sandbox down --wipe"), run.err)
      assertEquals(after, before, "the demo sent fixtures to a bank it had found unfit for them")
    }
  }

  private def fixturesHeld(r: TestShell.Result, said: String): Unit = {
    assert(r.err.contains("demo: fixtures: 300 answers to 290 commands, each as expected"), r.err + said)
    assert(r.err.contains("findings: 0"), r.err + said)
    assert(r.err.contains("demo: ok"), r.err + said)
  }

  // In a shared turn: the demo without its latency step measures nothing (DemoSuite's other tests, which count the
  // bank's feedback or stop its handler, run before it or alone).
  test("bankops demo --no-latency: exit 0, every fixture answered as expected, balances validated, no latency step") {
    for {
      run <- SandboxFixture.cli("demo", "--load", "1000", "--no-latency")
      said <- sandboxSaid
    } yield {
      assertEquals(run.code, 0, run.err + said)
      fixturesHeld(run, said)
      assert(run.err.contains("demo: latency: skipped (--no-latency)") && !run.err.contains("floor"), run.err)
    }
  }

  test(
    "bankops demo again, with its latency step: exit 0, the fixtures answered from what the bank remembers, an older chart replaced"
      .tag(OnSandbox.Alone)) {
    // An older chart in place: the demo's chart is its own, each run's replacing the last one's.
    val chart = os.temp.dir() / "latency.png"
    os.write(chart, "an older chart")
    for {
      // It sends the fixtures' commands again (the test before sent them): a bank that remembers them answers each as the
      // first time.
      // Its load and steps short: the test before ran the load, and this one's turn alone is the whole run's wait.
      run <- SandboxFixture.cli("demo", "--load", "200", "--step-duration", "2s", "--chart", chart.toString)
      said <- sandboxSaid
    } yield {
      assertEquals(run.code, 0, run.err + said)
      fixturesHeld(run, said)
      assertEquals(os.read.bytes(chart).take(4).toList, List(0x89, 'P', 'N', 'G').map(_.toByte))
      // Warm or cold as measured, and Kafka's floor beside the handler's figures.
      // A probe every 100 ms for 2 s a step: 20, less a few the machine delays.
      val line = """demo: latency \((warm: settled after|cold: not settled within) \d+\.\d s of probes, (1\d|20) probes a step\): """ +
        """feedback p99 \d+ ms at 0/s, \d+ ms at 500/s of extra load; Kafka's exactly-once floor p99 \d+ ms, \d+ ms \(the handler at [\d.]+x, [\d.]+x\)"""
      assert(line.r.findFirstIn(run.err).isDefined && run.err.contains(s"chart $chart"), run.err)
    }
  }

  test("demo --no-latency with --chart or --step-duration: exit 2 naming both, before anything runs") {
    for {
      chart <- TestShell.run(List("demo", "--no-latency", "--chart", "x.png"))
      step <- TestShell.run(List("demo", "--no-latency", "--step-duration", "5s"))
    } yield {
      assertEquals((chart.code, chart.err.linesIterator.next()), (2, "bankops: --chart: --no-latency makes no chart (run with --help for usage)"))
      assertEquals((step.code, step.err.linesIterator.next()),
        (2, "bankops: --step-duration: --no-latency has no latency steps (run with --help for usage)"))
    }
  }
}

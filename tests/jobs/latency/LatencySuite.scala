package bankops.jobs.latency

import cats.effect.IO
import cats.syntax.all._
import io.circe.Json
import io.circe.parser.parse

import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.services.kafka.{ClusterTopics, KafkaClients}
import bankops.support.{BankFixture, CliProcess, InProcessHandler, IOSuite, SandboxFixture, TestShell}
import bankops.support.BankFixture.{creation, id}
import bankops.support.OnSandbox

/** `bankops latency` against a bank of the test's own (topics, database, a handler process) on the sandbox. A run whose
  * rate or met SLO is asserted has the sandbox to itself (aloneFor), since a busy machine could miss them; the set-up and
  * the rest share it.
  */
class LatencySuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private def bankArgs(bank: BankFixture): List[String] =
    List("latency", "--commands-topic", bank.commands, "--feedback-topic", bank.feedback, "--balance-topic", bank.balance,
      "--db-url", bank.dbUrl, "--group", bank.group)

  /** A handler process, consuming once this returns; stopped (SIGTERM) afterwards: for a run that watches its pid. */
  private def withHandlerProcess[A](bank: BankFixture)(body: os.SubProcess => IO[A]): IO[A] = {
    val log = os.temp(prefix = "latency-handler", suffix = ".log")
    // Until it holds its partitions, not only until it is ready: a CI run's probe account, sent while the group was
    // still assigning them, was not answered within the 5 s `latency` gives it.
    IO.blocking(bank.spawnHandler("latency", log)).flatTap(h => BankFixture.awaitReady(h, log) >> BankFixture.awaitLog(log, "holds partitions"))
      .bracket(body)(h => BankFixture.signal(h, "TERM").void)
  }

  /** As [[withHandlerProcess]], the handler in this JVM. */
  private def withHandler[A](bank: BankFixture)(body: InProcessHandler => IO[A]): IO[A] = {
    val log = os.temp(prefix = "latency-handler", suffix = ".log")
    bank.runHandler("latency", log).flatTap(h => BankFixture.awaitReady(h, log) >> BankFixture.awaitLog(log, "holds partitions"))
      .bracket(body)(_.stop.void)
  }

  private def lines(r: TestShell.Result, kind: String): List[Json] =
    r.outLines.map(l => parse(l).fold(e => fail(s"not JSON: $l ($e)"), identity)).filter(_.hcursor.get[String]("type").contains(kind))

  private def ms(j: Json, field: String): Double = j.hcursor.get[Double](field).getOrElse(fail(s"no $field in ${j.noSpaces}"))

  test("two small load steps: probes with three latencies each in a plausible order, two steps, an SVG chart with the series") {
    BankFixture.create("latency").flatMap { bank =>
      withHandlerProcess(bank) { handler =>
        val chart = os.temp.dir() / "latency.svg"
        for {
          // An SLO above the probes' 5 s timeout: any answered probe meets it, so a slow machine cannot break it (a
          // CI run's p99 was 4,028 ms under p99<4s); a broken SLO has a test of its own.
          r <- aloneFor("a paced load and an SLO")(SandboxFixture.cli(bankArgs(bank) ++ List("--load", "0,100", "--step-duration", "4s",
                "--warm-up", "2s", "--watch-pid", handler.wrapped.pid().toString, "--chart", chart.toString, "--slo", "p99<6s", "-o", "json"): _*))
        } yield {
          assertEquals(r.code, 0, r.err)
          val probes = lines(r, "probe")
          assert(probes.size >= 6, r.out)
          probes.foreach { p =>
            assertEquals(p.hcursor.get[String]("outcome"), Right("confirmed"), p.noSpaces)
            assert(List("feedbackMs", "balanceMs", "dbMs").forall(f => ms(p, f) > 0 && ms(p, f) < 5000), p.noSpaces)
          }
          // Feedback and BalanceChanged leave in one transaction, committed just before the database's; the database is
          // polled every 20 ms. Per probe a busy test JVM may pause, so the order is checked on the medians. A read_committed
          // reader sees the transaction once its markers are replicated to the in-sync replicas, which on the test's three
          // brokers (sharing two cores with the rest) came ~450 ms after the database showed the deposit.
          def median(field: String) = probes.map(ms(_, field)).sorted.apply(probes.size / 2)
          assert(math.abs(median("feedbackMs") - median("balanceMs")) < 300 && median("feedbackMs") <= median("dbMs") + 1000, probes.mkString("\n"))
          // The warm-up's probes are reported apart (step 0), before the steps, and counted in no step.
          val warm = lines(r, "warm-up")
          assertEquals(warm.size, 1, r.out)
          val warmProbes = probes.count(_.hcursor.get[Int]("step").contains(0))
          assert(warmProbes >= 1, r.out)
          assertEquals(warm.head.hcursor.get[Int]("probes"), Right(warmProbes))
          val steps = lines(r, "step")
          assertEquals(steps.flatMap(_.hcursor.get[Int]("probes").toOption).sum + warmProbes, probes.size)
          assertEquals(steps.map(_.hcursor.downField("load").get[Int]("asked").toOption.get), List(0, 100))
          val achieved = steps(1).hcursor.downField("load").get[Double]("achieved").toOption.get
          assert(achieved > 90 && achieved < 110, steps(1).noSpaces)
          assert(steps.forall(_.hcursor.downField("processes").downN(0).get[String]("name").contains("handler")),
            steps.map(_.noSpaces).mkString("\n"))
          assert(steps.forall(_.hcursor.downField("latencyMs").downField("db").get[Long]("count").exists(_ > 0)))
          val svg = os.read(chart)
          assert(svg.contains("<svg") && svg.contains("feedback p99") && svg.contains("handler CPU %") && svg.contains("timeout"), svg.take(500))
          assert(r.err.contains(s"chart written to $chart"), r.err)
        }
      }
    }
  }

  /** Whether the cluster still has the topic or the consumer group, as the operator sees it. */
  private def exists(topic: String, group: String): IO[(Boolean, Boolean)] = SandboxFixture.settings.flatMap { settings =>
    KafkaClients.javaAdmin(settings.kafka).use { admin =>
      (ClusterTopics.names(admin).map(_.contains(topic)),
        KafkaClients.await(admin.listConsumerGroups().all()).map(_.asScala.exists(_.groupId == group))).tupled
    }
  }

  /** The floor's scratch topics and group, as the run named them on stderr. */
  private def floorNames(err: String): (String, String, String) = {
    val created = "created (bankops-floor-[0-9a-f]{8})-in and (bankops-floor-[0-9a-f]{8})-out".r
    created.findFirstMatchIn(err).fold(fail(s"no floor topics named:\n$err"))(m => (s"${m.group(1)}-in", s"${m.group(2)}-out", m.group(1)))
  }

  test("--floor: Kafka's floor measured first on scratch topics shaped as the commands topic, each step beside the handler's; all removed after") {
    BankFixture.create("latency-floor").flatMap { bank =>
      withHandler(bank) { _ =>
        val chart = os.temp.dir() / "floor.svg"
        for {
          // A probe gets 15 s, not 5: on a cold sandbox the floor's first probes once took longer. What is checked here is
          // that the floor is measured beside the handler, not how fast, so the sandbox is shared meanwhile.
          r <- SandboxFixture.cli(bankArgs(bank) ++ List("--floor", "--load", "0,100", "--step-duration", "3s", "--warm-up", "1s", "--interval",
              "200ms", "--timeout", "15s", "--chart", chart.toString, "-o", "json"): _*)
          (in, out, group) = floorNames(r.err)
          left <- (exists(in, group), exists(out, group)).tupled
        } yield {
          assertEquals(r.code, 0, r.err)
          // Shaped as the fixture's commands topic: 3 partitions, replication 3, min.insync.replicas 2.
          assert(r.err.contains(s"as ${bank.commands} (3 partition(s), replication 3, min.insync.replicas 2)"), r.err)
          val floorProbes = lines(r, "floor-probe")
          assert(floorProbes.size >= 10, r.out)
          floorProbes.foreach(p =>
            assert(p.hcursor.get[String]("outcome").contains("confirmed") && ms(p, "feedbackMs") > 0, s"${p.noSpaces}\n${r.err}"))
          // The handler's probes are counted apart from the floor's.
          val steps = lines(r, "step")
          assertEquals(steps.flatMap(_.hcursor.get[Int]("probes").toOption).sum + lines(r, "warm-up").flatMap(_.hcursor.get[Int]("probes").toOption)
              .sum, lines(r, "probe").size)
          assertEquals(steps.size, 2, r.out)
          steps.foreach { st =>
            val f = st.hcursor.downField("floor")
            assertEquals(f.downField("load").get[Int]("asked"), st.hcursor.downField("load").get[Int]("asked"), st.noSpaces)
            assert(f.downField("latencyMs").downField("feedback").get[Long]("count").exists(_ > 0), st.noSpaces)
            assert(st.hcursor.get[Double]("p99OverFloor").exists(_ > 0), st.noSpaces)
          }
          // The floor's load went to its own topic at the rate asked.
          val achieved = steps(1).hcursor.downField("floor").downField("load").get[Double]("achieved").toOption.get
          assert(achieved > 90 && achieved < 110, steps(1).noSpaces)
          assert(os.read(chart).contains("Kafka floor p99"), "the chart draws the floor")
          assertEquals(left, ((false, false), (false, false)), s"$in, $out or group $group left behind")
        }
      }
    }
  }

  test(
    "a broken SLO is exit 1 naming it; with the handler stopped probes time out and the run ends in its warm-up after --max-timeouts with exit 1, chart written") {
    BankFixture.create("latency-stop").flatMap { bank =>
      val chart = os.temp.dir() / "latency.png"
      val account = id()
      for {
        iban <- withHandler(bank) { _ =>
          for {
            _ <- bank.send(List(creation(account)))
            created <- bank.awaitFeedback(Set(account))
            // Shared: p50<1ms is broken and db:max<60s is met however busy the machine is.
            slo <- SandboxFixture.cli(bankArgs(bank) ++ List("--load", "0", "--step-duration", "3s", "--slo", "p50<1ms", "--slo", "db:max<60s",
                "-o", "json"): _*)
          } yield {
            assertEquals(slo.code, 1, slo.err)
            assert(slo.err.contains("p50<1ms broken") && !slo.err.contains("db:max<60s broken"), slo.err)
            bank.accounts(created)(account)._1
          }
        }
        // Shared: two probes of 1 s with the handler stopped end the run in seconds, in its warm-up (a chart with no step
        // in it); 30 s allow for a busy machine.
        timedOut <- for {
          started <- IO.monotonic
          stopped <- SandboxFixture.cli(bankArgs(bank) ++ List("--account", iban, "--load", "0", "--step-duration", "60s", "--timeout", "1s",
              "--max-timeouts", "2", "--warm-up", "60s", "--chart", chart.toString, "-o", "json"): _*)
          ended <- IO.monotonic
        } yield (stopped, ended - started)
        (stopped, took) = timedOut
        creation <- SandboxFixture.cli(bankArgs(bank) ++ List("--load", "0", "--step-duration", "5s", "--timeout", "1s"): _*)
      } yield {
        assertEquals(stopped.code, 1, stopped.err)
        assert(stopped.err.contains("stopped after 2 probes timed out"), stopped.err)
        assert(took < 30.seconds, s"took $took")
        assert(lines(stopped, "probe").count(_.hcursor.get[String]("outcome").contains("timeout")) >= 2, stopped.out)
        assertEquals((lines(stopped, "warm-up").size, lines(stopped, "step").size), (1, 0), stopped.out)
        assert(stopped.err.contains(s"latency: chart written to $chart"), stopped.err)
        val png = os.read.bytes(chart)
        assertEquals(png.take(4).toList, List(0x89, 'P', 'N', 'G').map(_.toByte))
        assertEquals(creation.code, 1, creation.err)
        assert(creation.err.contains("probe account's creation"), creation.err)
      }
    }
  }

  test("Ctrl-C: exit 130, the step so far reported with the probes that were in flight, a line saying so") {
    BankFixture.create("latency-int").flatMap(bank => withHandler(bank)(_ => interrupted(bank)))
  }

  private def interrupted(bank: BankFixture) =
    for {
      p <- CliProcess.start(bankArgs(bank) ++ List("--load", "0", "--step-duration", "60s", "--warm-up", "0", "-o", "json"): _*)
      probes = IO.blocking(os.read.lines(p.out).count(_.contains("\"type\":\"probe\"")))
      _ <- p.await(60.seconds, "two probes")(probes.map(_ >= 2))
      code <- p.interrupt
      n <- probes
    } yield {
      val steps = os.read.lines(p.out).filter(_.contains("\"type\":\"step\""))
      assertEquals(code, 130, os.read(p.err))
      assertEquals(steps.size, 1, os.read(p.out))
      assert(steps.head.contains(s"\"probes\":$n"), steps.head)
      assert(os.read(p.err).contains("interrupted (Ctrl-C) during step 1"), os.read(p.err))
    }

  test("Ctrl-C during the floor: exit 130 naming it, the floor's step reported alone, its topics and group removed") {
    BankFixture.create("latency-floor-int").flatMap(bank => withHandler(bank)(_ => interruptedFloor(bank)))
  }

  private def interruptedFloor(bank: BankFixture) =
    for {
      // What is tested is Ctrl-C, not the floor's answers: probes that time out (a relay whose group is slow to form
      // after another test restarted a broker; CI here) must not end the run before the Ctrl-C lands.
      p <- CliProcess.start(bankArgs(bank) ++ List("--floor", "--load", "0", "--step-duration", "60s", "--warm-up", "0", "--interval", "200ms",
          "--max-timeouts", "1000", "-o", "json"): _*)
      floorProbes = IO.blocking(os.read.lines(p.out).count(_.contains("\"type\":\"floor-probe\"")))
      _ <- p.await(90.seconds, "two floor probes")(floorProbes.map(_ >= 2))
      code <- p.interrupt
      err = os.read(p.err)
      (in, out, group) = floorNames(err)
      left <- (exists(in, group), exists(out, group)).tupled
    } yield {
      assertEquals(code, 130, err)
      assert(err.contains("interrupted (Ctrl-C) during Kafka's exactly-once floor (the handler was not measured)"), err)
      val outLines = os.read.lines(p.out)
      assertEquals(outLines.count(_.contains("\"type\":\"floor-step\"")), 1, p.out.toString)
      assertEquals(outLines.count(l => l.contains("\"type\":\"step\"") || l.contains("\"type\":\"probe\"")), 0, os.read(p.out))
      assertEquals(left, ((false, false), (false, false)), s"$in, $out or group $group left behind")
    }

  test("bad input is exit 2 with a line naming it, before anything is sent") {
    val dir = os.temp.dir()
    val link = dir / "link.png"
    os.symlink(link, dir / "elsewhere.png")
    os.makeDir(dir / "d.png")
    os.write(dir / "exists.png", "keep")
    val cases = List(
      List("--chart", dir.toString) -> "must end in .png or .svg",
      List("--chart", (dir / "d.png").toString) -> "is a directory",
      List("--chart", (dir / "exists.png").toString) -> "already exists: --overwrite replaces it",
      List("--chart", (dir / "x.gif").toString) -> "not .gif",
      List("--chart", (dir / "missing" / "x.png").toString) -> "no such directory",
      List("--chart", link.toString) -> "symbolic link",
      List("--load", "0,x") -> "--load must be records per second",
      List("--load", "0", "--ramp", "0:1:2") -> "exclude each other",
      List("--slo", "p99>1ms") -> "--slo must look like",
      List("--watch-pid", "999999999") -> "--watch-pid 999999999: no such process",
      List("--account", "NL00NOPE") -> "not a valid iban",
      List("--interval", "0s") -> "--interval must be more than 0"
    )
    cases.traverse { case (args, expected) =>
      SandboxFixture.cli("latency" :: args: _*).map { r =>
        assertEquals(r.code, 2, s"$args: ${r.err}")
        assert(r.err.contains(expected), s"$args: ${r.err}")
      }
    }.map(_ => assertEquals(os.read(dir / "exists.png"), "keep"))
  }
}

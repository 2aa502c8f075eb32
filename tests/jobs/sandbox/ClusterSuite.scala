package bankops.jobs.sandbox

import cats.effect.IO
import io.circe.parser.parse

import scala.concurrent.duration._

import bankops.services.contracts.TopologyFile
import bankops.support.{KafkaTools, CliProcess, PythonClients, Repo, SandboxFixture, Setup, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

/** The test sandbox's three brokers: the bank's topics as the topology declares them, read back with Kafka's own tool,
  * and the jobs going on, losing and doubling nothing, while one broker is stopped and started again.
  */
class ClusterSuite extends munit.CatsEffectSuite with OnSandbox {
  override val munitIOTimeout: Duration = 6.minutes

  private def cli(args: String*) = SandboxFixture.cli(args: _*)

  /** Kafka's own TopicCommand, as the operator. */
  private def describe(topic: String): IO[String] =
    KafkaTools.run("org.apache.kafka.tools.TopicCommand", "--describe", "--topic", topic)

  /** Stops brokers for the length of `during`, and starts them again whatever happened. */
  private def withBrokerStopped[A](brokers: String*)(during: IO[A]): IO[A] =
    Setup.cli(s"stop ${brokers.mkString(" ")}", "sandbox" :: "stop" :: brokers.toList: _*).bracket(_ => during)(_ =>
      Setup.cli(s"start ${brokers.mkString(" ")}", "sandbox" :: "start" :: brokers.toList: _*).void)

  private val bankTopics = TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(fail(_), identity).topics.map(_.name)

  /** Every broker up and every partition of `topics` back in sync, so later suites meet a whole cluster. */
  private def whole(topics: String*): IO[TestShell.Result] = (IO.sleep(1.second) >> cli("sandbox", "status", "-o", "json"))
    .iterateUntil(_.code == 0).flatTap(_ =>
      (IO.sleep(1.second) >> cli("topics" :: "describe" :: "--fail-under-replicated" :: "-o" :: "json" :: topics.toList: _*))
        .iterateUntil(_.code == 0)).timeout(120.seconds)

  /** A sandbox service's command line, by the pid it recorded. */
  private def commandLine(service: String): List[String] = {
    val pid = os.read(SandboxFixture.layout.pidFile(service)).trim
    os.read(os.root / "proc" / pid / "cmdline").split('\u0000').toList
  }

  private def followed(p: CliProcess): List[String] = os.read.lines(p.out).filter(_.startsWith("{")).toList

  private def statusOf(r: TestShell.Result): Map[String, Boolean] =
    r.outLines.flatMap(l => parse(l).toOption).map(j => j.hcursor.get[String]("service").toOption.get -> j.hcursor.get[Boolean]("up").toOption.get)
      .toMap

  // Alone: it asserts the bank's in-sync replicas, which another test's broker restart shrinks for a while.
  test("every bank topic has three replicas, all in sync, and min.insync.replicas 2, as Kafka's TopicCommand reads them".tag(OnSandbox.Alone)) {
    IO.parTraverseN(2)(bankTopics)(t => describe(t).map(t -> _)).map(_.foreach { case (t, out) =>
      assert(out.contains("ReplicationFactor: 3") && out.contains("min.insync.replicas=2"), out)
      val isr = """Isr: (\S+)""".r.findAllMatchIn(out).map(_.group(1).split(',').toSet).toList
      assert(isr.nonEmpty && isr.forall(_ == Set("1", "2", "3")), s"$t: $out")
    })
  }

  test("one broker stopped mid-run: status names it (exit 3), topics flag under-replication; heartbeat, replay and " +
    "inspect --follow go on, nothing lost or doubled (confluent-kafka counts), while it stops and while it comes back; started again, status is 0") {
    val (source, target, again2) = (TopologyFixture.unique("beats"), TopologyFixture.unique("beats-copy"), TopologyFixture.unique("beats-copy2"))
    val file =
      TopologyFiles.write(TopologyFiles.topology((source, 3, Map.empty, "Heartbeat", "time"), (target, 3, Map.empty, "Heartbeat", "time"),
          (again2, 3, Map.empty, "Heartbeat", "time")))
    def beats(lines: List[io.circe.Json]) = lines.map(_.hcursor.downField("value").get[Long]("beat").toOption.get)
    for {
      _ <- Setup.cli("apply the topics", "apply", "--topology", file.toString)
      _ <- Setup.cli("beat 0", "heartbeat", "--topic", source, "--count", "1", "--start-beat", "0")
      // The follower is reading (it has shown beat 0) before the load starts and the broker stops.
      follow <- CliProcess.start("inspect", "--topic", source, "--follow", "-o", "json")
      _ <- follow.await(60.seconds, "beat 0 followed")(IO.blocking(followed(follow).nonEmpty))
      // Alone from the load to the cluster whole again: brokers stop.
      loads <- aloneFor("brokers stopped and started under heartbeat, replay and inspect --follow")(for {
        sending <- cli("heartbeat", "--topic", source, "--count", "3000", "--rate", "300", "--start-beat", "1").start
        // The broker stops once every partition has taken the load's first batch. A partition's leader takes an unknown
        // producer's first sequence whatever it is: with the first batch still in flight to the stopping leader, the
        // next one can reach the new leader first, and the first is refused as out of order until it expires (exit 3).
        _ <- follow.await(60.seconds, "the load under way")(IO.blocking(followed(follow).size > 300))
        stopped <- withBrokerStopped("kafka-2")(for {
          status <- cli("sandbox", "status", "-o", "json")
          // Asked until the cluster has taken the stopped broker out of the ISRs (a minute at most), then checked below.
          underReplicated = cli("topics", "describe", source, "--topology", file.toString, "-o", "json", "--fail-under-replicated")
          flagged <- (IO.sleep(500.millis) >> underReplicated).iterateUntil(_.code == 1).timeoutTo(60.seconds, underReplicated)
          sent <- sending.joinWithNever
          // Paced to take ~10 s: the broker comes back while it runs, once it has copied a first second's records.
          replaying <- cli("replay", "--from-topic", source, "--to-topic", target, "--rate", "300").start
          _ <- (IO.sleep(500.millis) >> PythonClients.consume(target)).iterateUntil(_.size >= 300).timeout(90.seconds)
        } yield (status, flagged, replaying, sent))
        (status, flagged, replaying, sent) = stopped
        replay <- replaying.joinWithNever
        again <- whole(source :: target :: bankTopics: _*)
        // And a broker stopped while a replay runs.
        replaying2 <- cli("replay", "--from-topic", source, "--to-topic", again2, "--rate", "300").start
        // As above: the broker stops once every partition has taken the replay's first batch (its JVM's start alone took
        // most of a fixed 3 s wait in CI, and 52 records of a first batch expired unacknowledged).
        _ <- (IO.sleep(1.second) >> PythonClients.consume(again2)).iterateUntil(_.size > 300).timeout(90.seconds)
        replay2 <- withBrokerStopped("kafka-3")(replaying2.joinWithNever)
        _ <- whole(again2 :: bankTopics: _*) >> SandboxFixture.inSync
      } yield (stopped, replay, again, replay2))
      ((status, flagged, replaying, sent), replay, again, replay2) = loads
      restarted <- IO.blocking(commandLine("kafka-3"))
      // Checked after what the heartbeat and replay reported: a load that failed explains a follower that fell short.
      reached <- follow.await(60.seconds, "3001 records followed")(IO.blocking(followed(follow).size >= 3001)).attempt
      interrupted <- follow.interrupt
      read <- PythonClients.consume(source)
      copy <- PythonClients.consume(target)
      copy2 <- PythonClients.consume(again2)
    } yield {
      assertEquals(sent.code, 0, sent.out + sent.err)
      assertEquals(status.code, 3, status.out)
      assertEquals(statusOf(status).filterNot(_._2).keySet, Set("kafka-2"), status.out)
      assertEquals(flagged.code, 1, flagged.out + flagged.err)
      assert(flagged.err.contains("under-replicated"), flagged.err)
      assertEquals(replay.code, 0, replay.out + replay.err)
      assertEquals(beats(copy).sorted, (0L to 3000L).toList, "replay with a broker down, and back midway, copied every beat once")
      assertEquals(replay2.code, 0, replay2.out + replay2.err)
      assertEquals(beats(copy2).sorted, (0L to 3000L).toList, "replay with a broker stopped midway copied every beat once")
      assertEquals(statusOf(again).values.toSet, Set(true), again.out)
      // `sandbox start` gave the broker BANKOPS_KAFKA_JAVA_OPTS (the fixture's environment) after its own options.
      assert(restarted.containsSlice(bankops.base.JvmOptions.Kafka ++ bankops.support.Jvm.Broker), restarted)
      assertEquals(beats(read).sorted, (0L to 3000L).toList, "every beat once, read by confluent-kafka")
      reached.fold(e => fail(e.getMessage), identity)
      assertEquals(interrupted, 0)
      assertEquals(beats(followed(follow).flatMap(parse(_).toOption)).sorted, (0L to 3000L).toList,
        "inspect --follow saw every beat once across the broker's absence")
    }
  }
}

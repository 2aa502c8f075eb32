package bankops.jobs.sandbox

import cats.effect.IO
import io.circe.parser.parse

import scala.concurrent.duration._

import bankops.jobs.replay.CommandTopics
import bankops.services.config.{ConnectionFlags, Connections, Source}
import bankops.services.contracts.TopologyFile
import bankops.services.kafka.EndOffsets
import bankops.support.{CliProcess, IOSuite, KafkaTools, PythonClients, Repo, SandboxFixture, Setup, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

/** The test sandbox's three brokers: the bank's topics as the topology declares them, read back with Kafka's own tool,
  * and the jobs going on, losing and doubling nothing, while one broker is stopped and started again.
  */
class ClusterSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 6.minutes

  private def cli(args: String*) = SandboxFixture.cli(args: _*)

  /** Kafka's own TopicCommand, as the operator. */
  private def describe(topic: String): IO[String] =
    KafkaTools.run("org.apache.kafka.tools.TopicCommand", "--describe", "--topic", topic)

  /** Stops brokers for the length of `during`, and starts them again whatever happened. */
  private def withBrokerStopped[A](brokers: String*)(during: IO[A]): IO[A] =
    Setup.cli(s"stop ${brokers.mkString(" ")}", "sandbox" :: "stop" :: brokers.toList: _*).bracket(_ => during)(_ =>
      Setup.cli(s"start ${brokers.mkString(" ")}", "sandbox" :: "start" :: brokers.toList: _*).void)

  /** `sandbox up` bringing back what is stopped while a job in another shell resolves its connection in a loop: up's
    * result, how many times the job resolved, and what it found wrong (no sandbox, or an address that is not the
    * sandbox's: `up` used to remove the connection while a service restarted, and jobs went to localhost:9092).
    */
  private def upWhileResolving: IO[(TestShell.Result, Int, List[String])] = {
    val shell = new bankops.support.TestShell(SandboxFixture.env, Repo.root).shell
    val resolve = Connections.load(ConnectionFlags(useContexts = false), shell).attempt.map {
      case Right(s) if s.kafka.bootstrapServers.source == Source.Sandbox => Nil
      case Right(s) => List(s"resolved ${s.kafka.bootstrapServers.value} (${s.kafka.bootstrapServers.source.describe})")
      case Left(e) => List(String.valueOf(e.getMessage))
    }
    def readUntil(done: IO[Boolean], reads: Int, seen: List[String]): IO[(Int, List[String])] =
      done.flatMap(d => if (d) IO.pure((reads, seen)) else resolve.flatMap(p => readUntil(done, reads + 1, seen ++ p)))
    for {
      done <- cats.effect.Ref[IO].of(false)
      reader <- readUntil(done.get, 0, Nil).start
      up <- TestShell.run(List("sandbox", "up"), SandboxFixture.env + ("XDG_CONFIG_HOME" -> os.temp.dir().toString), Repo.root)
        .guarantee(done.set(true))
      read <- reader.joinWithNever
    } yield (up, read._1, read._2)
  }

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

  // Shared: a test that stops a broker does so alone, and gives the sandbox back once every partition is in sync again.
  test("every bank topic has three replicas, all in sync, and min.insync.replicas 2, as Kafka's TopicCommand reads them") {
    IO.parTraverseN(2)(bankTopics)(t => describe(t).map(t -> _)).map(_.foreach { case (t, out) =>
      assert(out.contains("ReplicationFactor: 3") && out.contains("min.insync.replicas=2"), out)
      val isr = """Isr: (\S+)""".r.findAllMatchIn(out).map(_.group(1).split(',').toSet).toList
      assert(isr.nonEmpty && isr.forall(_ == Set("1", "2", "3")), s"$t: $out")
    })
  }

  /** (partition, offset, key) of every record on a topic. */
  private def records(topic: String): IO[List[(Int, Long, String)]] =
    SandboxFixture.records(topic).map(_.map(r => (r.partition, r.offset, new String(r.key, "UTF-8"))))

  private val ResumeAt = """partition (\d+) from offset (\d+)""".r

  test("one broker stopped mid-run: status names it (exit 3), topics flag under-replication; heartbeat, replay and " +
    "inspect --follow go on, nothing lost or doubled (confluent-kafka counts), while it stops and while it comes back; started again, status is 0; " +
    "a replay running across a stop and start: exact counts, or exit 3 with resume offsets that lose nothing, never a duplicate") {
    val (source, target, again2) = (TopologyFixture.unique("beats"), TopologyFixture.unique("beats-copy"), TopologyFixture.unique("beats-copy2"))
    // Commands on topics of one replica each: the stopped broker's partitions go offline, not just under-replicated.
    val (commands, copied, n) = (TopologyFixture.unique("src"), TopologyFixture.unique("dst"), 20000)
    val file =
      TopologyFiles.write(TopologyFiles.topology((source, 3, Map.empty, "Heartbeat", "time"), (target, 3, Map.empty, "Heartbeat", "time"),
          (again2, 3, Map.empty, "Heartbeat", "time")))
    def beats(lines: List[io.circe.Json]) = lines.map(_.hcursor.downField("value").get[Long]("beat").toOption.get)
    for {
      _ <- Setup.cli("apply the topics", "apply", "--topology", file.toString)
      _ <- Setup.cli("beat 0", "heartbeat", "--topic", source, "--count", "1", "--start-beat", "0")
      _ <- CommandTopics.apply(commands, copied)
      _ <-
        Setup.cli(s"$n commands", "heartbeat", "--kind", "commands", "--no-learn", "--commands-topic", commands, "--count", n.toString, "--rate", "0")
      // The follower is reading (it has shown beat 0) before the load starts and the broker stops.
      follow <- CliProcess.start("inspect", "--topic", source, "--follow", "-o", "json")
      _ <- follow.await(60.seconds, "beat 0 followed")(IO.blocking(followed(follow).nonEmpty))
      // Alone from the load to the cluster whole again, whatever happened: brokers stop.
      loads <- aloneFor("brokers stopped and started under heartbeat, two replays and inspect --follow")((for {
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
        // again2 too: a partition of it still short of its in-sync replicas after the first outage would be below
        // min.insync.replicas once the second one stops a broker.
        again <- whole(source :: target :: again2 :: bankTopics: _*)
        // And a broker stopped while two replays run: one paced to end while it is stopped, the other (the commands at
        // 1,000/s, ~18 s left at the stop) running on while it comes back.
        replaying2 <- cli("replay", "--from-topic", source, "--to-topic", again2, "--rate", "300").start
        fast <- cli("replay", "--from-topic", commands, "--to-topic", copied, "--rate", "1000", "--timeout", "15").start
        // As above: the broker stops once every partition has taken the replay's first batch (its JVM's start alone took
        // most of a fixed 3 s wait in CI, and 52 records of a first batch expired unacknowledged).
        // Per partition: a CI run stopped the broker once 300 records were on two partitions and none acknowledged on
        // the third, whose first batch then expired (exit 3, 25 records short).
        _ <- (IO.sleep(500.millis) >> SandboxFixture.admin.flatMap(EndOffsets.of(_, again2)))
          .iterateUntil(ends => ends.size == 3 && ends.values.forall(_ >= 50)).timeout(90.seconds)
        atStop <- (IO.sleep(100.millis) >> SandboxFixture.written(copied)).iterateUntil(_ >= 2000).timeout(90.seconds)
        // Brought back by `sandbox up`, as an operator mending the cluster would, while a job resolves the connection.
        stopped2 <- withBrokerStopped("kafka-3")(replaying2.joinWithNever.flatMap(r => upWhileResolving.map(r -> _)))
        (replay2, upped) = stopped2
        fastReplay <- fast.joinWithNever
        _ <- whole(again2 :: bankTopics: _*)
      } yield (stopped, replay, again, replay2, (fastReplay, atStop), upped)).guarantee(SandboxFixture.inSync))
      ((status, flagged, replaying, sent), replay, again, replay2, (fastReplay, atStop), (up, reads, wrong)) = loads
      restarted <- IO.blocking(commandLine("kafka-3"))
      // Checked after what the heartbeat and replay reported: a load that failed explains a follower that fell short.
      reached <- follow.await(60.seconds, "3001 records followed")(IO.blocking(followed(follow).size >= 3001)).attempt
      interrupted <- follow.interrupt
      read <- PythonClients.consume(source)
      copy <- PythonClients.consume(target)
      copy2 <- PythonClients.consume(again2)
      commandsRead <- records(commands)
      commandsCopied <- records(copied)
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
      assertEquals(up.code, 0, up.err)
      assert(up.err.linesIterator.exists(_.matches("kafka-3 +(started|restarted).*")), up.err)
      assert(reads >= 5, s"only $reads resolutions while up ran")
      assertEquals(wrong.distinct, Nil, s"$reads resolutions while up restarted kafka-3")
      // `sandbox up` gave the broker BANKOPS_KAFKA_JAVA_OPTS (the fixture's environment) after its own options.
      assert(restarted.containsSlice(bankops.base.JvmOptions.Kafka ++ bankops.support.Jvm.Broker), restarted)
      assertEquals(beats(read).sorted, (0L to 3000L).toList, "every beat once, read by confluent-kafka")
      reached.fold(e => fail(e.getMessage), identity)
      assertEquals(interrupted, 0)
      assertEquals(beats(followed(follow).flatMap(parse(_).toOption)).sorted, (0L to 3000L).toList,
        "inspect --follow saw every beat once across the broker's absence")
      // Two outcomes are documented: the producer's retries carry the replay through (exact counts), or it fails naming
      // per source partition the offset to resume from. Kafka's idempotent producer can lose its sequence across a
      // restart (OUT_OF_ORDER_SEQUENCE_NUMBER until the delivery timeout), so both happen here.
      assert(atStop >= 2000 && atStop < n, s"$atStop of $n written at the stop")
      val keys = commandsCopied.map(_._3)
      assertEquals(keys.distinct.size, keys.size, "a command was written twice")
      assert(keys.toSet.subsetOf(commandsRead.map(_._3).toSet))
      if (fastReplay.code == 0) {
        assert(fastReplay.err.contains(s"$n read, $n acknowledged") && fastReplay.err.contains(", 0 failed"), fastReplay.err)
        assertEquals(keys.sorted, commandsRead.map(_._3).sorted)
      } else {
        assertEquals(fastReplay.code, 3, fastReplay.err)
        val resume = ResumeAt.findAllMatchIn(fastReplay.err.linesIterator.find(_.contains("resume with --from")).getOrElse(fail(fastReplay.err)))
          .map(m => m.group(1).toInt -> m.group(2).toLong).toMap
        assert(resume.nonEmpty, fastReplay.err)
        // Resuming from those offsets loses nothing: every source record before them is on the target.
        val before = commandsRead.filter { case (p, o, _) => resume.get(p).forall(o < _) }.map(_._3)
        assertEquals(before.filterNot(keys.toSet), Nil, fastReplay.err)
      }
    }
  }
}

package bankops.jobs.topics

import cats.effect.IO
import io.circe.Json
import io.circe.parser.parse
import org.apache.kafka.clients.admin.{AlterConfigOp, ConfigEntry}
import org.apache.kafka.common.config.ConfigResource

import java.time.Instant
import java.time.temporal.ChronoUnit
import scala.concurrent.duration._

import bankops.services.kafka.KafkaClients
import bankops.support.{IOSuite, KafkaTools, PythonClients, RefusedClient, SandboxFixture, Setup, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

class TopicsSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private def bankops(args: String*): IO[TestShell.Result] = SandboxFixture.cli(args: _*)

  /** Kafka's own TopicCommand, through the sandbox's client properties: an independent reader. */
  private def describe(topic: String): IO[String] =
    KafkaTools.run("org.apache.kafka.tools.TopicCommand", "--describe", "--topic", topic)

  /** Kafka's own LogDirsCommand: each replica's size, by (partition, broker). */
  private def logDirs(topic: String): IO[Map[(Int, Int), Long]] =
    KafkaTools.run("org.apache.kafka.tools.LogDirsCommand", "--describe", "--topic-list", topic).map { out =>
      val json = parse(out.linesIterator.filter(_.startsWith("{")).toList.last).fold(throw _, identity)
      (for {
        broker <- json.hcursor.downField("brokers").as[List[Json]].toOption.get
        id = broker.hcursor.get[Int]("broker").toOption.get
        dir <- broker.hcursor.downField("logDirs").as[List[Json]].toOption.get
        p <- dir.hcursor.downField("partitions").as[List[Json]].toOption.get
        name = p.hcursor.get[String]("partition").toOption.get if name.startsWith(topic + "-")
      } yield (name.drop(topic.length + 1).toInt, id) -> p.hcursor.get[Long]("size").toOption.get).toMap
    }

  /** TopicCommand's partition lines: partition -> (leader, replicas, in-sync replicas). */
  private def kafkaPartitions(described: String): Map[Int, (String, String, String)] = {
    val line = """.*Partition: (\d+)\s+Leader: (\S+)\s+Replicas: (\S*)\s+Isr: (\S*).*""".r
    described.linesIterator.collect { case line(p, l, r, i) => p.toInt -> (l, r, i) }.toMap
  }

  test("a topic unknown when first asked and created a moment later is counted, not called missing; one never created is exit 2") {
    val (late, never) = (TopologyFixture.unique("late"), TopologyFixture.unique("never"))
    for {
      s <- SandboxFixture.settings
      // As a job asks a broker that has not yet read the controller's record of a topic `apply` just created.
      // Created through the tests' admin client, connected already: the creation is one request, well within the
      // 2 s a job asks an unknown topic again.
      admin <- SandboxFixture.admin
      counting <- KafkaClients.partitionCount(s.kafka, late, 30.seconds).start
      _ <- IO.sleep(300.millis)
      _ <- IO.blocking(admin.createTopics(java.util.List.of(new org.apache.kafka.clients.admin.NewTopic(late, 3, 1.toShort))).all().get())
      counted <- counting.joinWithNever
      missing <- KafkaClients.partitionCount(s.kafka, never, 30.seconds).attempt
    } yield {
      assertEquals(counted, 3)
      assertEquals(missing.left.map(_.getMessage), Left(s"topic $never does not exist"))
    }
  }

  test("describe agrees with Kafka's TopicCommand and LogDirsCommand; offsets, record times, config sources, drift from the topology") {
    val t = TopologyFixture.unique("described")
    val file = TopologyFiles.write(TopologyFiles.topology((t, 3, Map("retention.ms" -> "2d"), "ConfirmAccountCreation", "id")))
    val base = Instant.now().minus(10, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.MILLIS)
    val lines = (0 until 12).map(i =>
      s"""{"topic": "$t", "key": "k$i", "timestamp": ${base.plusSeconds(i.toLong).toEpochMilli}, "record": "ConfirmAccountCreation",
         | "value": {"id": "6f1c2d3e-0000-4000-8000-0000000000${"%02d".format(i)}", "a_type": "AUTO"}}""".stripMargin.replace("\n", ""))
    for {
      _ <- Setup.cli("apply the topic and its subject", "apply", "--topology", file.toString)
      _ <- PythonClients.produce(lines)
      settings <- SandboxFixture.settings
      _ <- KafkaClients.admin(settings.kafka).use(_.alterConfigs(Map(new ConfigResource(ConfigResource.Type.TOPIC, t) ->
            List(new AlterConfigOp(new ConfigEntry("retention.ms", "259200000"), AlterConfigOp.OpType.SET)))))
      r <- bankops("topics", "describe", t, "--topology", file.toString, "-o", "json")
      kafka <- describe(t)
      sizes <- logDirs(t)
      table <- bankops("topics", "describe", t, "--topology", file.toString, "-o", "table")
    } yield {
      assertEquals(r.code, 0, r.err)
      assertEquals(r.outLines.size, 1, r.out)
      val topic = parse(r.out).fold(throw _, identity).hcursor
      val parts = topic.downField("partitions").as[List[Json]].toOption.get.map(_.hcursor)
      def ints(c: io.circe.HCursor, f: String) = c.get[List[Int]](f).toOption.get.mkString(",")
      assertEquals(
        parts.map(p =>
          p.get[Int]("partition").toOption.get ->
            (p.get[Int]("leader").fold(_ => "none", _.toString), ints(p, "replicas"),
              ints(p, "isr"))).toMap, kafkaPartitions(kafka), kafka)
      assertEquals(
        parts.flatMap(p =>
          p.downField("replicaSizes").as[Map[String, Long]].toOption.get.map { case (b, s) =>
            (p.get[Int]("partition").toOption.get, b.toInt) -> s
          }).toMap, sizes)
      assert(sizes.values.exists(_ > 0), sizes.toString)
      def longs(f: String) = parts.map(_.get[Long](f).toOption.get)
      assertEquals(longs("logStart"), List(0L, 0L, 0L))
      assertEquals(longs("end").sum, 12L)
      assertEquals(longs("lastStable"), longs("end"))
      val firsts = parts.flatMap(_.get[String]("firstRecord").toOption).map(Instant.parse)
      val lasts = parts.flatMap(_.get[String]("lastRecord").toOption).map(Instant.parse)
      assertEquals(firsts.size, longs("end").count(_ > 0))
      assertEquals(firsts.min, base)
      assertEquals(lasts.max, base.plusSeconds(11))
      val configs = topic.downField("configs").as[List[Json]].toOption.get.map(_.hcursor)
      val retention = configs.find(_.get[String]("name").contains("retention.ms")).get
      assertEquals((retention.get[String]("value"), retention.get[String]("source")), (Right("259200000"), Right("topic")))
      assert(configs.exists(_.get[String]("source").contains("default")), configs.toString)
      assertEquals(topic.get[Boolean]("declared"), Right(true))
      assertEquals(topic.downField("differences").as[List[Json]].map(_.map(_.noSpaces)),
        Right(List("""{"kind":"set-config","detail":"retention.ms: 259200000 -> 172800000"}""")))
      assertEquals(topic.get[List[Int]]("underReplicated"), Right(Nil))
      assertEquals(table.code, 0, table.err)
      assert(table.out.startsWith(s"topic $t: 3 partitions, replication 3, declared in the topology"), table.out)
      assert(table.out.linesIterator.exists(_.split("\\s+").toList == List("retention.ms", "259200000", "topic")), table.out)
      assert(table.out.contains("\n  set-config  retention.ms: 259200000 -> 172800000"), table.out)
    }
  }

  test("list: the topology's topics with partitions and replication; internal ones only with --internal; an unknown topic to describe is exit 2".tag(
      OnSandbox.Alone)) {
    val t = TopologyFixture.unique("listed")
    val file = TopologyFiles.write(TopologyFiles.topology((t, 2, Map.empty, "Heartbeat", "time")))
    for {
      _ <- Setup.cli("apply the topic", "topics", "apply", "--topology", file.toString)
      listed <- bankops("topics", "list", "--topology", file.toString, "-o", "json", "--fail-under-replicated")
      internal <- bankops("topics", "list", "--topology", file.toString, "-o", "json", "--internal")
      unknown <- bankops("topics", "describe", t, s"$t-nope", "--topology", file.toString)
      monitored <- bankops("topics", "describe", t, "--topology", file.toString, "-o", "json", "--fail-under-replicated")
    } yield {
      assertEquals(listed.code, 0, listed.err)
      val lines = listed.outLines.map(l => parse(l).fold(throw _, identity))
      val mine = lines.find(_.hcursor.get[String]("topic").contains(t)).map(_.noSpaces)
      assertEquals(mine,
        Some(s"""{"topic":"$t","internal":false,"partitions":2,"replicationFactor":3,""" + """"declared":true,"underReplicated":0,"offline":0}"""))
      assert(lines.forall(_.hcursor.get[Boolean]("internal").contains(false)), listed.out)
      assert(!listed.out.contains("__consumer_offsets"), listed.out)
      assert(internal.outLines.exists(l => l.contains("\"topic\":\"__consumer_offsets\"") && l.contains("\"internal\":true")), internal.out)
      assertEquals(unknown.code, 2, unknown.err)
      assertEquals(unknown.err.trim, s"bankops: topic $t-nope does not exist")
      assertEquals(unknown.out, "")
      assertEquals(monitored.code, 0, monitored.err)
    }
  }

  test("apply creates the declared topics (checked with Kafka's TopicCommand); a second apply changes nothing") {
    val (hb, cmd) = (TopologyFixture.unique("heartbeat"), TopologyFixture.unique("commands"))
    val file = TopologyFiles.write(TopologyFiles.topology(
        (hb, 1, Map("retention.ms" -> "15m"), "Heartbeat", "time"), (cmd, 4, Map.empty, "ConfirmMoneyTransfer", "id")))
    for {
      first <- bankops("topics", "apply", "--topology", file.toString, "-o", "json")
      hbInfo <- describe(hb)
      cmdInfo <- describe(cmd)
      second <- bankops("topics", "apply", "--topology", file.toString, "-o", "table")
      plan <- bankops("topics", "plan", "--topology", file.toString, "-o", "json")
    } yield {
      assertEquals(first.code, 0, first.err)
      assertEquals(first.outLines.size, 2, first.out)
      assert(hbInfo.contains("PartitionCount: 1") && hbInfo.contains("retention.ms=900000"), hbInfo)
      assert(cmdInfo.contains("PartitionCount: 4") && cmdInfo.contains("ReplicationFactor: 3"), cmdInfo)
      assertEquals(second.code, 0, second.err)
      assert(second.out.contains("no changes"), second.out)
      assertEquals(plan.code, 0)
      assertEquals(plan.out.trim, """{"changes":[],"warnings":[]}""")
    }
  }

  test("a config changed out of band: plan exits 1 naming it, apply restores it; more partitions declared are added") {
    val hb = TopologyFixture.unique("heartbeat")
    val file = TopologyFiles.write(TopologyFiles.topology((hb, 1, Map("retention.ms" -> "900000"), "Heartbeat", "time")))
    val grown = TopologyFiles.write(TopologyFiles.topology((hb, 3, Map("retention.ms" -> "900000"), "Heartbeat", "time")))
    for {
      _ <- Setup.cli("apply the topic", "topics", "apply", "--topology", file.toString)
      settings <- SandboxFixture.settings
      _ <- KafkaClients.admin(settings.kafka).use(_.alterConfigs(Map(new ConfigResource(ConfigResource.Type.TOPIC, hb) ->
            List(new AlterConfigOp(new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET)))))
      drift <- bankops("topics", "plan", "--topology", file.toString, "-o", "table")
      fixed <- bankops("topics", "apply", "--topology", file.toString, "-o", "table")
      info <- describe(hb)
      growPlan <- bankops("topics", "plan", "--topology", grown.toString, "-o", "json")
      grow <- bankops("topics", "apply", "--topology", grown.toString, "-o", "json")
      grownInfo <- describe(hb)
    } yield {
      assertEquals(drift.code, 1, drift.err)
      assert(drift.out.contains(s"$hb  set-config  retention.ms: 1000 -> 900000"), drift.out)
      assertEquals(fixed.code, 0, fixed.err)
      assert(info.contains("retention.ms=900000"), info)
      assertEquals(growPlan.code, 1)
      assert(growPlan.out.contains(""""action":"add-partitions","topic":"""" + hb + """","from":1,"to":3"""), growPlan.out)
      assertEquals(grow.code, 0, grow.err)
      assert(grownInfo.contains("PartitionCount: 3"), grownInfo)
    }
  }

  test("a config the broker refuses: apply changes nothing at all and exits 2 naming the topic") {
    val (good, bad) = (TopologyFixture.unique("good"), TopologyFixture.unique("bad"))
    val file = TopologyFiles.write(TopologyFiles.topology(
        (good, 1, Map.empty, "Heartbeat", "time"), (bad, 1, Map("cleanup.policy" -> "shred"), "Heartbeat", "time")))
    for {
      r <- bankops("topics", "apply", "--topology", file.toString)
      settings <- SandboxFixture.settings
      names <- KafkaClients.admin(settings.kafka).use(_.listTopics.names)
    } yield {
      assertEquals(r.code, 2, r.err)
      assert(r.err.contains(s"refused: topic $bad: create"), r.err)
      assert(r.err.contains("nothing was changed"), r.err)
      assert(!names.contains(good) && !names.contains(bad), names)
    }
  }

  test("a plaintext client cannot reach the topics: it never gets a node to ask (where an SSL client just described them)") {
    RefusedClient.refusal(Map("security.protocol" -> "PLAINTEXT"), 5.seconds)(_.describeTopics(List("heartbeat"))).map { r =>
      assert(r.noNode, r.describe)
      assert(r.took < 15.seconds, r.took.toString)
    }
  }

  test("an unreachable broker: exit 3 within the timeout, naming the address") {
    val file = TopologyFiles.write(TopologyFiles.topology(("x", 1, Map.empty, "Heartbeat", "time")))
    val started = System.nanoTime()
    TestShell.run(List("topics", "plan", "--topology", file.toString, "--bootstrap-server", "localhost:1", "--timeout", "3")).map { r =>
      val took = (System.nanoTime() - started).nanos
      assertEquals(r.code, 3, r.err)
      assert(r.err.contains("localhost:1") && r.err.contains("3 s"), r.err)
      assert(took < 20.seconds, took.toString)
    }
  }

  test("a bad topology: exit 2 naming file and path, before any connection") {
    val file = TopologyFiles.write("""{"topics": {"x": {"partitions": 0, "replicationFactor": 1, "records": []}}}""")
    TestShell.run(List("topics", "apply", "--topology", file.toString, "--bootstrap-server", "localhost:1")).map { r =>
      assertEquals(r.code, 2)
      assertEquals(r.err.trim, s"bankops: $file: topics.x.partitions: must be at least 1, got 0")
    }
  }

  test("--delete-unlisted without --yes is refused as usage") {
    TestShell.run(List("topics", "apply", "--delete-unlisted")).map { r =>
      assertEquals(r.code, 2)
      assert(r.err.contains("--delete-unlisted deletes topics: add --yes"), r.err)
    }
  }
}

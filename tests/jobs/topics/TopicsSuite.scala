package bankops.jobs.topics

import cats.effect.IO
import org.apache.kafka.clients.admin.{AlterConfigOp, ConfigEntry}
import org.apache.kafka.common.config.ConfigResource

import scala.concurrent.duration._

import bankops.services.kafka.KafkaClients
import bankops.support.{RefusedClient, SandboxFixture, Setup, TestShell, TopologyFixture}

class TopicsSuite extends munit.CatsEffectSuite {
  override val munitIOTimeout: Duration = 5.minutes

  private def bankops(args: String*): IO[TestShell.Result] = SandboxFixture.cli(args: _*)

  /** Kafka's own TopicCommand, through the sandbox's client properties: an independent reader. */
  private def describe(topic: String): IO[String] = SandboxFixture.connection.flatMap(c =>
    IO.blocking {
      val cp = os.read(SandboxFixture.layout.kafkaDir / "classpath")
      os.proc("java", "-cp", cp, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", c.bootstrapServers,
        "--command-config", SandboxFixture.layout.clientProperties.toString, "--describe", "--topic", topic)
        .call(stderr = os.Pipe).out.text()
    })

  test("apply creates the declared topics (checked with Kafka's TopicCommand); a second apply changes nothing") {
    val (hb, cmd) = (TopologyFixture.unique("heartbeat"), TopologyFixture.unique("commands"))
    val file = TopologyFixture.write(TopologyFixture.topology(
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
      assert(cmdInfo.contains("PartitionCount: 4") && cmdInfo.contains("ReplicationFactor: 1"), cmdInfo)
      assertEquals(second.code, 0, second.err)
      assert(second.out.contains("no changes"), second.out)
      assertEquals(plan.code, 0)
      assertEquals(plan.out.trim, """{"changes":[],"warnings":[]}""")
    }
  }

  test("a config changed out of band: plan exits 1 naming it, apply restores it; more partitions declared are added") {
    val hb = TopologyFixture.unique("heartbeat")
    val file = TopologyFixture.write(TopologyFixture.topology((hb, 1, Map("retention.ms" -> "900000"), "Heartbeat", "time")))
    val grown = TopologyFixture.write(TopologyFixture.topology((hb, 3, Map("retention.ms" -> "900000"), "Heartbeat", "time")))
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
    val file = TopologyFixture.write(TopologyFixture.topology(
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
    val file = TopologyFixture.write(TopologyFixture.topology(("x", 1, Map.empty, "Heartbeat", "time")))
    val started = System.nanoTime()
    TestShell.run(List("topics", "plan", "--topology", file.toString, "--bootstrap-server", "localhost:1", "--timeout", "3")).map { r =>
      val took = (System.nanoTime() - started).nanos
      assertEquals(r.code, 3, r.err)
      assert(r.err.contains("localhost:1") && r.err.contains("3 s"), r.err)
      assert(took < 20.seconds, took.toString)
    }
  }

  test("a bad topology: exit 2 naming file and path, before any connection") {
    val file = TopologyFixture.write("""{"topics": {"x": {"partitions": 0, "replicationFactor": 1, "records": []}}}""")
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

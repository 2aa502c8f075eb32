package bankops.jobs.topics

import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource

import java.time.Instant

import bankops.services.contracts.TopologyFile
import bankops.services.kafka.{ConfigSetting, PartitionDetails, TopicDetails}
import bankops.support.{IOSuite, Repo, TestShell, TopologyFiles}

/** `topics list/describe` without a cluster: the flags of a partition, the topology comparison and the exit code,
  * every combination on the model (on the sandbox, only ClusterSuite's stopped broker makes a partition under-replicated).
  */
class TopicsCoreSuite extends IOSuite {
  private def part(n: Int, leader: Option[Int], replicas: List[Int], isr: List[Int], sizes: Map[Int, Long] = Map.empty) =
    PartitionDetails(n, leader, replicas, isr, Some(0), Some(5), Some(5), sizes, Some(Instant.EPOCH), Some(Instant.EPOCH))

  private val healthy = part(0, Some(1), List(1, 2, 3), List(1, 2, 3), Map(1 -> 100L, 2 -> 90L, 3 -> 80L))
  private val lagging = part(1, Some(2), List(2, 3, 1), List(2, 3))
  private val offline = part(2, None, List(3, 1, 2), Nil, Map(1 -> 70L, 3 -> 75L))

  test("a partition with fewer in-sync replicas than replicas is under-replicated; one without leader is offline too") {
    assertEquals(healthy.flags, Nil)
    assertEquals(lagging.flags, List("under-replicated"))
    assertEquals(offline.flags, List("offline", "under-replicated"))
    val t = TopicDetails("t", internal = false, "id", List(healthy, lagging, offline), Nil)
    assertEquals(t.underReplicated, List(1, 2))
    assertEquals(t.offline, List(2))
    assertEquals(t.replicationFactor, 3)
  }

  test("size is the leader's replica's, else the largest replica's") {
    assertEquals(healthy.size, Some(100L))
    assertEquals(offline.size, Some(75L))
    assertEquals(lagging.size, None)
  }

  test("config sources are named where an operator changes them; sensitive values never reach the effective config") {
    assertEquals(ConfigSetting.sourceName(ConfigSource.DYNAMIC_TOPIC_CONFIG), "topic")
    assertEquals(ConfigSetting.sourceName(ConfigSource.DEFAULT_CONFIG), "default")
    assertEquals(ConfigSetting.sourceName(ConfigSource.STATIC_BROKER_CONFIG), "broker")
    assertEquals(ConfigSetting.sourceName(ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG), "cluster-dynamic")
    val t = TopicDetails("t", internal = false, "id", Nil,
      List(ConfigSetting("retention.ms", Some("1000"), "topic", sensitive = false), ConfigSetting("secret", None, "topic", sensitive = true)))
    assertEquals(t.effectiveConfig, Map("retention.ms" -> "1000"))
  }

  test("differences from the topology are what topics plan reports: configs by meaning, partitions, replication") {
    val file = TopologyFiles.write(TopologyFiles.topology(("t", 2, Map("retention.ms" -> "15m"), "Heartbeat", "time")))
    val topology = TopologyFile.load(file).fold(e => fail(e), identity)
    def topic(partitions: Int, rf: Int, retention: String) =
      TopicDetails("t", internal = false, "id", (0 until partitions).toList.map(p => part(p, Some(1), (1 to rf).toList, (1 to rf).toList)),
        List(ConfigSetting("retention.ms", Some(retention), "topic", sensitive = false)))
    assertEquals(TopicDrift.of(topology, 3, topic(2, 3, "900000")), Some(Nil))
    assertEquals(TopicDrift.of(topology, 3, topic(2, 3, "1000")), Some(List(Difference("set-config", "retention.ms: 1000 -> 900000"))))
    assertEquals(TopicDrift.of(topology, 3, topic(1, 1, "900000")).map(_.map(_.kind)), Some(List("add-partitions", "replication-differs")))
    // Never capped in silence: one broker holding one replica of a topic declared with three is a difference.
    assertEquals(TopicDrift.of(topology, 1, topic(2, 1, "900000")).map(_.map(_.kind)), Some(List("replication-differs")))
    assertEquals(TopicDrift.of(topology, 1, topic(2, 1, "900000").copy(name = "other")), None)
  }

  test("--fail-under-replicated: exit 1 naming the partitions; without it a warning and exit 0; none: exit 0, silent") {
    val (failing, warned, quiet) = (new TestShell(Map.empty, Repo.root), new TestShell(Map.empty, Repo.root), new TestShell(Map.empty, Repo.root))
    def shown(v: (bankops.base.Rendered, cats.effect.ExitCode), shell: TestShell) =
      bankops.base.Rendered.show(v._1, bankops.base.OutputFormat.Table, shell.shell).as(v._2)
    for {
      f <- shown(TopicsReading.verdict(2, List("t-1", "t-2"), fail = true), failing)
      w <- shown(TopicsReading.verdict(1, List("t-1"), fail = false), warned)
      q <- shown(TopicsReading.verdict(0, Nil, fail = true), quiet)
    } yield {
      assertEquals((f.code, w.code, q.code), (1, 0, 0))
      assertEquals(failing.err.trim, "topics: 2 under-replicated partitions: t-1, t-2")
      assertEquals(warned.err.trim, "warning: 1 under-replicated partition: t-1")
      assertEquals(quiet.err, "")
    }
  }
}

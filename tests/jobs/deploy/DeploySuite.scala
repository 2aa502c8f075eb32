package bankops.jobs.deploy

import cats.effect.IO

import scala.concurrent.duration._

import bankops.services.kafka.KafkaClients
import bankops.support.{IOSuite, SandboxFixture, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

class DeploySuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private def bankops(args: String*): IO[TestShell.Result] = SandboxFixture.cli(args: _*)

  private def topics: IO[Set[String]] = SandboxFixture.settings.flatMap(s => KafkaClients.admin(s.kafka).use(_.listTopics.names))

  test("apply does topics and schemas in one step; then plan is empty") {
    val (hb, cmd) = (TopologyFixture.unique("hb"), TopologyFixture.unique("cmd"))
    val file = TopologyFiles.write(TopologyFiles.topology((hb, 1, Map("retention.ms" -> "15m"), "Heartbeat", "time"),
        (cmd, 3, Map.empty, "ConfirmAccountCreation", "id")))
    for {
      applied <- bankops("apply", "--topology", file.toString, "-o", "json")
      plan <- bankops("plan", "--topology", file.toString, "-o", "json")
      names <- topics
      r <- SandboxFixture.registry
      subject <- r.version(s"$cmd-nl.openweb.data.ConfirmAccountCreation")
    } yield {
      assertEquals(applied.code, 0, applied.err)
      assertEquals(plan.code, 0, plan.out)
      assert(names.contains(hb) && names.contains(cmd), names)
      assertEquals(subject.map(_.version), Some(1))
    }
  }

  test("the gate: one incompatible schema means no topic is created and no schema registered") {
    val (hb, fresh) = (TopologyFixture.unique("hb"), TopologyFixture.unique("fresh"))
    val (v1, v2) = TopologyFiles.incompatibleHeartbeat(hb, (fresh, 2, "MoneyTransferFailed"))
    for {
      first <- bankops("apply", "--topology", v1.toString)
      gated <- bankops("apply", "--topology", v2.toString, "-o", "table")
      names <- topics
      r <- SandboxFixture.registry
      subject <- r.version(s"$fresh-nl.openweb.data.MoneyTransferFailed")
    } yield {
      assertEquals(first.code, 0, first.err)
      assertEquals(gated.code, 1, gated.err)
      assert(gated.err.contains(s"incompatible: $hb-nl.openweb.data.Heartbeat"), gated.err)
      assert(gated.err.contains("nothing was changed, neither topics nor schemas"), gated.err)
      assert(!names.contains(fresh), names)
      assertEquals(subject, None)
    }
  }
}

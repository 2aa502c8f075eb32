package bankops.support

import bankops.jobs.sandbox.SandboxSettings
import bankops.services.config.Connections

/** The tests' sandbox is not the user's: another directory, and by default none of its ports. */
class SandboxFixtureSuite extends munit.FunSuite {

  test("the tests' sandbox directory is not the one `bankops sandbox up` and `bankops demo` use in this checkout") {
    val users = Connections.sandboxDir(None, new TestShell(Map.empty, Repo.root).shell)
    assertNotEquals(SandboxFixture.layout.dir, users)
    assert(!SandboxFixture.layout.dir.startsWith(users) && !users.startsWith(SandboxFixture.layout.dir), (SandboxFixture.layout.dir, users))
    assertEquals(SandboxFixture.env.get("BANKOPS_SANDBOX_DIR"), Some(SandboxFixture.layout.dir.toString))
  }

  test("its default ports are none of the user's sandbox's defaults") {
    def ports(s: SandboxSettings) = Set(s.kafkaPort, s.controllerPort, s.registryPort, s.dbPort)
    assertEquals(ports(SandboxFixture.defaultSettings).intersect(ports(SandboxSettings())), Set.empty[Int])
    assertEquals(ports(SandboxFixture.defaultSettings).size, 4)
  }

  test("the suites' second sandboxes, in every shard, take none of the ports of another sandbox, of a second checkout 1,000 " +
    "ports up, or of the user's; all below the ephemeral range") {
    // Three brokers each: the most a test sandbox runs.
    def ports(s: SandboxSettings) = s.nodes.flatMap(n => List(s.sslPort(n), s.scramPort(n), s.controllerPortOf(n))).toSet + s.registryPort + s.dbPort
    val sandboxes = SandboxSettings() ::
      (for { checkout <- List(0, 1000); shard <- 0 to 7; n <- 0 to 3 } yield SandboxFixture.moved(
        SandboxFixture.defaultSettings.copy(brokers = SandboxSettings.DefaultBrokers),
        checkout + shard * SandboxFixture.ShardPortStep + n * SandboxFixture.BesideStep)).toList
    val all = sandboxes.map(ports)
    assertEquals(all.map(_.size).sum, all.flatten.toSet.size, "a port is in two sandboxes")
    assert(all.flatten.max < 32768, all.flatten.max)
  }

  test("CLI runs against it carry its ports, so a `sandbox up` among them keeps it where it is") {
    val s = SandboxFixture.sandboxSettings
    assertEquals(List("BANKOPS_KAFKA_PORT", "BANKOPS_CONTROLLER_PORT", "BANKOPS_REGISTRY_PORT", "BANKOPS_DB_PORT").map(SandboxFixture.env.get),
      List(s.kafkaPort, s.controllerPort, s.registryPort, s.dbPort).map(p => Some(p.toString)))
  }
}

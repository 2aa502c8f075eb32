package bankops.support

import cats.effect.IO
import cats.effect.unsafe.implicits.global

import bankops.services.registry.RegistryClient
import bankops.jobs.sandbox.{Sandbox, SandboxLayout, SandboxSettings}
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections, SandboxConnection}

/** The real services for integration tests: a sandbox already running in the
  * checkout is reused; otherwise one is started for this test run and the
  * services it started are stopped when the test JVM exits.
  */
object SandboxFixture {
  private val shell = new TestShell(Map.empty, Repo.root).shell
  val layout: SandboxLayout = SandboxLayout(Repo.root / ".bankops" / "sandbox")

  /** The ports a sandbox started here uses: SandboxSettings' defaults, or BANKOPS_KAFKA_PORT etc. as `sandbox up` reads
    * them, so a second checkout on the same machine can test beside a developer's running sandbox.
    */
  val sandboxSettings: SandboxSettings = {
    def port(name: String, default: Int) = sys.env.get(name).filter(_.nonEmpty).fold(default)(_.toInt)
    val d = SandboxSettings()
    d.copy(kafkaPort = port("BANKOPS_KAFKA_PORT", d.kafkaPort), controllerPort = port("BANKOPS_CONTROLLER_PORT", d.controllerPort),
      registryPort = port("BANKOPS_REGISTRY_PORT", d.registryPort), dbPort = port("BANKOPS_DB_PORT", d.dbPort))
  }

  private lazy val started: SandboxConnection = {
    val sandbox = new Sandbox(layout, shell, bankops.SandboxProvision.applyTopology)
    val running = sandbox.status.unsafeRunSync().forall(_.up)
    val conn = if (running) SandboxConnection.read(layout.dir).unsafeRunSync().get else {
      val c = sandbox.up(sandboxSettings).unsafeRunSync()
      sys.addShutdownHook { sandbox.down(wipe = false).unsafeRunSync(); () }
      c
    }
    conn
  }

  /** Starts (or finds) the sandbox once per test JVM. */
  val connection: IO[SandboxConnection] = IO.blocking(started)

  /** The CLI as an operator in the checkout runs it against this sandbox. */
  def cli(args: String*): IO[TestShell.Result] =
    connection >> TestShell.run(args.toList, Map("BANKOPS_SANDBOX_DIR" -> layout.dir.toString), Repo.root)

  /** The settings every job resolves when nothing else is configured. */
  val settings: IO[ConnectionSettings] =
    connection >> Connections.load(ConnectionFlags(sandboxDir = Some(layout.dir)), shell)

  /** The sandbox's schema registry, as the jobs reach it. */
  val registry: IO[RegistryClient] = IO.blocking(sharedRegistry)

  // One client for the test JVM, closed as the JVM exits.
  private lazy val sharedRegistry: RegistryClient = {
    val (client, close) = settings.flatMap(RegistryClient.resource(_).allocated).unsafeRunSync()
    sys.addShutdownHook(close.unsafeRunSync())
    client
  }
}

package bankops.support

import cats.effect.IO
import bankops.support.IOSuite.runtime

import scala.concurrent.duration._

import bankops.services.kafka.{EndOffsets, KafkaClients, ReadSpec, StartAt, StopAt, TopicReader}
import bankops.services.registry.RegistryClient
import bankops.jobs.sandbox.{Sandbox, SandboxLayout, SandboxSettings}
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections, SandboxConnection}

/** The real services for integration tests, in a sandbox of the tests' own: its own directory and ports, so a
  * user's sandbox in the same checkout (`bankops sandbox up`, `bankops demo`) is left alone. Started afresh once per
  * test JVM (or reused when it already runs with these settings), and stopped as the JVM exits when this run started it.
  *
  * `./bankops test` runs its suites in several JVMs at once (build.sbt's shards): each shard has a sandbox of its own,
  * so a suite that stops a broker or the handler never disturbs a suite of another shard.
  */
object SandboxFixture {
  private val shell = new TestShell(jvms, Repo.root).shell

  /** This JVM's shard, set by build.sbt's test grouping; 0 when the suites run in one JVM. */
  val shard: Int = sys.props.get("bankops.test.shard").filter(_.nonEmpty).fold(0)(_.toInt)

  val layout: SandboxLayout = SandboxLayout(Repo.root / ".bankops" / (if (shard == 0) "test-sandbox" else s"test-sandbox-$shard"))

  /** Ports clear of the user's sandbox defaults (SandboxSettings()) and of the suites' other sandboxes. */
  val defaultSettings: SandboxSettings = SandboxSettings(kafkaPort = 19192, controllerPort = 19193, registryPort = 18181, dbPort = 15532)

  /** A shard's ports sit this far above the previous shard's: clear of the three brokers' blocks of ten. */
  val ShardPortStep = 100

  /** Ports to use: the defaults above, or BANKOPS_KAFKA_PORT etc. as `sandbox up` reads them, so a second checkout on
    * the same machine (or CI) can test beside another's sandbox; then moved up by the shard.
    */
  val sandboxSettings: SandboxSettings = {
    def port(name: String, default: Int) = sys.env.get(name).filter(_.nonEmpty).fold(default)(_.toInt) + shard * ShardPortStep
    val d = defaultSettings
    d.copy(kafkaPort = port("BANKOPS_KAFKA_PORT", d.kafkaPort), controllerPort = port("BANKOPS_CONTROLLER_PORT", d.controllerPort),
      registryPort = port("BANKOPS_REGISTRY_PORT", d.registryPort), dbPort = port("BANKOPS_DB_PORT", d.dbPort))
  }

  /** Ports of a second sandbox a suite starts beside the tests' own (MtlsSuite's, ContextSuite's, SandboxFaultsSuite's;
    * `n` from 1): the tests' own moved up by `n` * [[BesideStep]], so they move with BANKOPS_*_PORT and the shard as the
    * tests' own do, and two checkouts testing at once meet nowhere.
    */
  def beside(n: Int): SandboxSettings = moved(sandboxSettings, n * BesideStep)

  /** Every port of `s` moved `up`. */
  def moved(s: SandboxSettings, up: Int): SandboxSettings =
    s.copy(kafkaPort = s.kafkaPort + up, controllerPort = s.controllerPort + up, registryPort = s.registryPort + up, dbPort = s.dbPort + up)

  /** A multiple of the shards' step: a port's last two digits say which service it is, whatever sandbox it is of (up to
    * three brokers each, as the tests run them).
    */
  val BesideStep = 2000

  /** `sandbox up`'s flags for the ports of `s`. */
  def portFlags(s: SandboxSettings): List[String] = List("--kafka-port", s.kafkaPort.toString, "--controller-port", s.controllerPort.toString,
    "--registry-port", s.registryPort.toString, "--db-port", s.dbPort.toString)

  /** The JVMs of the CLI as the tests start them (`./bankops`, `sandbox start`): C1 only, as [[Jvm.TestOnly]] says why.
    * The registry and the handler keep their own options. The brokers: [[Jvm.Broker]].
    */
  private def jvms: Map[String, String] =
    Map("BANKOPS_JAVA_OPTS" -> Jvm.TestOnly.mkString(" "), "BANKOPS_KAFKA_JAVA_OPTS" -> Jvm.Broker.mkString(" "))

  /** The environment of a CLI run against this sandbox: its directory, and its ports for whatever runs `sandbox up`
    * (the workflows, `demo`) so that reuses it instead of moving it to the user's ports. Every connection variable is
    * blanked (empty counts as unset): a JVM spawned from the tests inherits their environment, and a shell with
    * `eval "$(bankops sandbox env)"` exported had the tests' handlers dial the user's cluster.
    */
  val env: Map[String, String] = ConnectionFlags.Variables.map(_ -> "").toMap ++ jvms ++ Map(
    "BANKOPS_SANDBOX_DIR" -> layout.dir.toString,
    "BANKOPS_KAFKA_PORT" -> sandboxSettings.kafkaPort.toString,
    "BANKOPS_CONTROLLER_PORT" -> sandboxSettings.controllerPort.toString,
    "BANKOPS_REGISTRY_PORT" -> sandboxSettings.registryPort.toString,
    "BANKOPS_DB_PORT" -> sandboxSettings.dbPort.toString
  )

  /** The test sandbox, to start, stop or restart its services as the tests' environment has them. */
  def sandbox: Sandbox = new Sandbox(layout, shell, bankops.SandboxProvision.applyTopology)

  private lazy val started: SandboxConnection = {
    val running = sandbox.status().unsafeRunSync().forall(_.up) && sandbox.recordedSettings.unsafeRunSync().contains(sandboxSettings)
    val conn = if (running) SandboxConnection.read(layout.dir).unsafeRunSync().get
    else {
      // A fresh sandbox each run, as CI's: one reused run after run kept every run's metadata (some 7,500 records a run,
      // 68,000 after a day here), and after that many its brokers, restarted by the tests, no longer listed the bank's
      // SCRAM users the controller's log still held (apply then asked to create them; `reader` could not sign in).
      sandbox.down(wipe = true, graceful = false).attempt.unsafeRunSync()
      val c = sandbox.up(sandboxSettings).unsafeRunSync()
      // Killed, not shut down cleanly (8 s at the end of every run): the next run wipes it first. Its logs stay.
      sys.addShutdownHook { sandbox.down(wipe = false, graceful = false).unsafeRunSync(); () }
      c
    }
    startedHere = Some(!running)
    conn
  }

  @volatile private var startedHere: Option[Boolean] = None

  /** Whether this JVM has reached the sandbox yet (so there is something to clean up). */
  def isStarted: Boolean = startedHere.isDefined

  /** Starts (or finds) the sandbox once per test JVM. A sandbox this JVM started has no other test run on it: what
    * earlier runs' tests left there is removed first.
    */
  val connection: IO[SandboxConnection] = IO.blocking(started).flatTap(_ => IO.blocking(cleaned))

  private lazy val cleaned: Unit = if (startedHere.contains(true)) loadSettings.flatMap(Leftovers.removeAll).unsafeRunSync()

  /** The CLI as an operator in the checkout runs it against this sandbox. */
  def cli(args: String*): IO[TestShell.Result] =
    connection >> TestShell.run(args.toList, env, Repo.root)

  /** As [[cli]], its standard output written to `stdout` (one that fails, as a closed pipe does). */
  def cliWritingTo(stdout: java.io.OutputStream)(args: String*): IO[TestShell.Result] =
    connection >> TestShell.run(args.toList, env, Repo.root, stdout = Some(stdout))

  /** Until every partition of every topic, Kafka's own included, has all its replicas in sync (`topics list --internal
    * --fail-under-replicated`), two minutes at most: a test that stopped or restarted a broker gives the sandbox back
    * whole to the tests after it. Kafka's own topics hold the transaction coordinators: a floor producer started right
    * after a restart, before __transaction_state was whole, once waited out its 10 s for its producer id.
    */
  val inSync: IO[Unit] = (IO.sleep(500.millis) >> cli("topics", "list", "--internal", "--fail-under-replicated", "-o", "json"))
    .iterateUntil(_.code == 0).timeout(
      2.minutes).void

  /** The settings every job resolves when nothing else is configured. */
  val settings: IO[ConnectionSettings] = connection >> loadSettings

  private def loadSettings: IO[ConnectionSettings] = Connections.load(ConnectionFlags(sandboxDir = Some(layout.dir)), shell)

  /** The last `n` lines of a sandbox service's log that `keep` picks, each as "\n<service> log: <line>": a failed
    * test's message says what the service said meanwhile.
    */
  def logSaid(service: String, n: Int)(keep: String => Boolean): String =
    Some(layout.log(service)).filter(os.isFile(_)).toList.flatMap(os.read.lines(_).filter(keep).takeRight(n))
      .map(l => s"\n$service log: $l").mkString

  /** How far a topic has been written: its end offsets summed (records and transaction markers; it only grows). */
  def written(topic: String): IO[Long] = admin.flatMap(EndOffsets.of(_, topic)).map(_.values.sum)

  /** Every record of a topic as Kafka holds it (bytes, headers, timestamps), read from the beginning to the end it had
    * when the read began.
    */
  def records(topic: String, timeout: FiniteDuration = 60.seconds): IO[List[TopicReader.Raw]] = settings.flatMap(s =>
    TopicReader.open(s.kafka, ReadSpec(List(topic), None, StartAt.Beginning, StopAt.End), timeout).use(_._2.compile.toList))

  /** One admin client for the test JVM (asked every 100 ms while a fault test waits: one client each time was a TLS
    * handshake with every broker each time), closed as the JVM exits.
    */
  val admin: IO[org.apache.kafka.clients.admin.Admin] = connection >> IO.blocking(sharedAdmin)

  // The sandbox reached first, outside: a lazy val of an object holds the object's lock while it computes, and the
  // connection computes this object's other lazy vals on another thread. Through `settings` in here, a test JVM whose
  // first use of the sandbox was this client hung for good (every io-blocking thread waiting for that lock).
  private lazy val sharedAdmin: org.apache.kafka.clients.admin.Admin = {
    val (client, close) = loadSettings.flatMap(s => KafkaClients.javaAdmin(s.kafka).allocated).unsafeRunSync()
    sys.addShutdownHook(close.unsafeRunSync())
    client
  }

  /** The sandbox's schema registry, as the jobs reach it. */
  val registry: IO[RegistryClient] = connection >> IO.blocking(sharedRegistry)

  // One client for the test JVM, closed as the JVM exits; the sandbox reached first, as the admin's.
  private lazy val sharedRegistry: RegistryClient = {
    val (client, close) = loadSettings.flatMap(RegistryClient.resource(_).allocated).unsafeRunSync()
    sys.addShutdownHook(close.unsafeRunSync())
    client
  }
}

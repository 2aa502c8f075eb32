package bankops.support

import bankops.base.{JvmOptions, ProjectDirectives}

/** The CLI in a JVM of its own, with the options the launcher gives it: project.scala's, and for `bankops handler`
  * the handler's own after those (as the sandbox runs it), so a spawned handler is the one operators run.
  */
object Jvm {
  private lazy val cli: List[String] =
    ProjectDirectives.parse(os.read(Repo.root / "project.scala")).fold(e => throw new IllegalStateException(e), _.javaOptions)

  /** A test's process lives seconds and applies tens of commands: C2's compiling would cost it more CPU than its code
    * ever runs, on cores the other suites share. The JIT's tier changes how fast, never what, the process does.
    */
  val TestOnly: List[String] = List("-XX:TieredStopAtLevel=1")

  /** C2 for the crypto only (tests/support/jit-c2-crypto.json), C1 for the rest, as the test JVM. With C1 only, RSA
    * signing (every new connection's TLS handshake) ran without BigInteger's intrinsics, 6.3 ms a signature against 0.8
    * with this: 43% of a broker's CPU samples through a test run (JFR, 150 s). The elliptic curves of every handshake's
    * key exchange (X25519 and P-256, sun.security.util.math.intpoly and sun.security.ec) were then 12% of the test JVM's
    * samples through a full run at C1; compiled by C2, 8,000 key exchanges took 27.6 CPU-s against 39.4, its compiling
    * included (2026-12-02). The options split on blanks where a variable carries them: a checkout under a path with one
    * keeps C1 only.
    */
  private val CryptoC2: List[String] = {
    val directives = Repo.root / "tests" / "support" / "jit-c2-crypto.json"
    if (directives.toString.exists(_.isWhitespace)) TestOnly
    else List("-XX:+UnlockDiagnosticVMOptions", s"-XX:CompilerDirectivesFile=$directives")
  }

  /** The test sandbox's brokers: [[CryptoC2]]. C2 for everything had cost them a third of their CPU (182 of 567 s)
    * compiling.
    */
  val Broker: List[String] = CryptoC2

  /** A spawned job that moves tens of MiB over TLS (BoundedMemorySuite's, ReplaySuite's large file): [[CryptoC2]]. At C1
    * alone, AES-GCM, GHASH and SHA-2 ran without their intrinsics, 20 to 40% of each job's CPU (async-profiler); with
    * C2 for everything, its compiling was the most of a job's CPU. (After [[TestOnly]], whose C1 alone it lifts.)
    */
  val DataMover: List[String] = if (CryptoC2 == TestOnly) Nil else "-XX:TieredStopAtLevel=4" :: CryptoC2

  /** `java … bankops.Main args` on the tests' classpath, its classes mapped from [[SpawnedClassData]]'s archive. */
  def bankops(args: Seq[String], jvm: List[String] = Nil): List[String] = {
    val options =
      if (args.headOption.contains("handler")) cli ++ JvmOptions.Handler
      else if (args.headOption.exists(JvmOptions.DataJobNames.contains)) cli ++ JvmOptions.DataJobs
      else cli
    List("java") ++ sized(options, jvm) ++ TestOnly ++ jvm ++ archive ++
      List("-cp", classpath, s"-Dbankops.home=${Repo.root}", "bankops.Main") ++ args
  }

  /** As the launcher: a heap the caller sizes with no young generation of its own drops the fixed -Xmn. */
  private def sized(options: List[String], caller: List[String]): List[String] =
    if (caller.exists(o => o.startsWith("-Xmx") || o.startsWith("-XX:MaxHeapSize=")) &&
      !caller.exists(o => List("-Xmn", "-XX:NewSize=", "-XX:MaxNewSize=", "-XX:NewRatio=").exists(o.startsWith)))
      options.filterNot(_.startsWith("-Xmn"))
    else options

  private val classpath = System.getProperty("java.class.path")

  /** Recorded at most once per test JVM, and only once this JVM has the sandbox (a recording that failed is not tried
    * again at every spawn): recording runs a handler on it, and a JVM that never reaches it (the quick tier's
    * StartInterruptSuite spawns bare CLI JVMs) must not start it for that; those map an archive an earlier run recorded,
    * or none. One archive serves both: it is recorded with the handler's options, and maps under the CLI's collector too.
    */
  private def archive: List[String] = if (SandboxFixture.isStarted) recorded else SpawnedClassData.existing(archived)

  private lazy val recorded: List[String] = SpawnedClassData.options(archived)

  private lazy val archived = SpawnedClassData.Archive(cli ++ JvmOptions.Handler ++ TestOnly, classpath)
}

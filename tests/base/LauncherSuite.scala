package bankops.base

import bankops.support.{Children, Repo}

/** The `./bankops` launcher's class-data archives (AppCDS), run for real. */
class LauncherSuite extends munit.FunSuite {
  // A hang guard only: each test starts two or three JVMs, one of them writing a class-data archive, and nothing it
  // asserts depends on time. On two cores shared with the sandbox's tests one took 41 s in a fresh-clone run here,
  // past munit's default 30 s.
  override val munitTimeout: scala.concurrent.duration.Duration = scala.concurrent.duration.Duration(5, "min")

  private val launcher = Repo.root / "bankops"
  private val state = Repo.root / ".bankops" / "build"
  private val archives = state / "cds"

  /** `./bankops test` passes the stamp of the sources it built to the tests: only then is the launcher's warm path
    * this checkout's build (elsewhere, e.g. under scala-cli, running it would start a build of its own).
    */
  private def launcherBuilt(): Unit = {
    val stamp = state / "stamp"
    assume(os.exists(stamp) && sys.env.get("BANKOPS_SOURCE_STAMP").contains(os.read(stamp).trim),
      "the launcher's classpath is built by ./bankops test")
  }

  private def run(args: Seq[String], env: Map[String, String] = Map.empty) =
    os.proc(launcher, args).call(cwd = Repo.root, check = false, stderr = os.Pipe,
      env = Map("BANKOPS_CDS" -> "on", "BANKOPS_JAVA_OPTS" -> "", "XDG_CONFIG_HOME" -> configHome.toString) ++ env)

  // The user's contexts stay out of the runs (and out of reach).
  private lazy val configHome = os.temp.dir(prefix = "bankops-launcher-config")

  private def configArchives = if (os.exists(archives)) os.list(archives).map(_.last).filter(_.startsWith("config-")) else Nil

  test("the launcher's job list for class-data archives is exactly the CLI's jobs but the long-running handler") {
    val line = os.read.lines(launcher).find(_.startsWith("CDS_JOBS=")).getOrElse(fail("no CDS_JOBS= line in ./bankops"))
    val listed = line.stripPrefix("CDS_JOBS=").stripPrefix("\"").stripSuffix("\"").split(' ').toList
    assertEquals(listed.sorted, bankops.Jobs.all.map(_.name).filterNot(_ == "handler").sorted)
  }

  test("a run over in a second (help, the version, a control-plane job) compiles with C1 alone; a data job keeps C2") {
    launcherBuilt()
    def level(args: String*): Option[String] =
      run(args, Map("BANKOPS_CDS" -> "off", "BANKOPS_JAVA_OPTS" -> "-XX:+PrintFlagsFinal")).out.lines()
        .find(_.matches("""\s*intx TieredStopAtLevel\s+=.*""")).map(_.split('=')(1).trim.split("\\s+")(0))
    assertEquals(List(level("--help"), level("inspect", "--help"), level("topics", "list", "--bootstrap-server", "127.0.0.1:9", "--timeout", "1s")),
      List.fill(3)(Some("1")))
    assertEquals(level("inspect", "--no-such-flag"), Some("4"))
    // Every job the launcher counts as quick is a job, and none of them moves records.
    val quick = os.read.lines(launcher).map(_.trim).find(_.startsWith("case \"$1\" in config")).getOrElse(fail("no quick jobs in ./bankops"))
      .stripPrefix("case \"$1\" in ").takeWhile(_ != ')').split('|').map(_.trim).toList
    assertEquals(quick.filterNot(bankops.Jobs.all.map(_.name).contains), Nil)
    assertEquals(quick.intersect(List("inspect", "capture", "restore", "replay", "produce", "heartbeat", "balances", "latency", "demo", "handler")),
      Nil)
  }

  test(
    "the jobs that move records run with a bounded heap; the others with the JVM's default; BANKOPS_JAVA_OPTS overrides it, young generation too") {
    launcherBuilt()
    def heapMiB(args: Seq[String], opts: String = ""): Long =
      run(args, Map("BANKOPS_CDS" -> "off", "BANKOPS_JAVA_OPTS" -> s"-XX:+PrintFlagsFinal $opts")).out.lines()
        .find(_.matches("""\s*size_t MaxHeapSize\s+=.*""")).map(_.split('=')(1).trim.split("\\s+")(0).toLong / (1024 * 1024))
        .getOrElse(fail(s"no MaxHeapSize for $args"))
    bankops.base.JvmOptions.DataJobNames.foreach(job => assertEquals(heapMiB(Seq(job, "--no-such-flag")), 320L, job))
    assertNotEquals(heapMiB(Seq("balances", "--no-such-flag")), 320L)
    assertEquals(heapMiB(Seq("inspect", "--no-such-flag"), "-Xmx96m"), 96L)
    // A heap the caller sizes gets a young generation sized from it (the fixed -Xmn would take 43 of 48 MiB), unless
    // the caller sizes that too.
    def youngMiB(opts: String): Long =
      run(Seq("replay", "--no-such-flag"), Map("BANKOPS_CDS" -> "off", "BANKOPS_JAVA_OPTS" -> s"-XX:+PrintFlagsFinal $opts")).out.lines()
        .find(_.matches("""\s*size_t MaxNewSize\s+=.*""")).map(_.split('=')(1).trim.split("\\s+")(0).toLong / (1024 * 1024))
        .getOrElse(fail(s"no MaxNewSize for $opts"))
    assertEquals(youngMiB("-Xmx48m"), 16L)
    assertEquals(youngMiB("-Xmx48m -Xmn20m"), 20L)
    assertEquals(youngMiB(""), 128L)
    // The launcher's list of data jobs is JvmOptions' (the tests' spawned jobs take the options from there).
    val listed = os.read.lines(launcher).map(_.trim).find(_.startsWith("case \"${1:-}\" in inspect")).getOrElse(fail("no data jobs in ./bankops"))
      .stripPrefix("case \"${1:-}\" in ").takeWhile(_ != ')').split('|').map(_.trim).toList
    assertEquals(listed, bankops.base.JvmOptions.DataJobNames)
  }

  /** The environment the launcher's JVM started with, read from /proc while the job waits on an address nothing answers. */
  private def jvmEnv(args: Seq[String], env: Map[String, String]): Map[String, String] = {
    val p = Children.spawn(os.proc(launcher, args), cwd = Repo.root, stdout = os.Pipe, stderr = os.Pipe,
      env = Map("BANKOPS_CDS" -> "off", "BANKOPS_JAVA_OPTS" -> "", "XDG_CONFIG_HOME" -> configHome.toString) ++ env)
    try {
      val proc = os.root / "proc" / p.wrapped.pid().toString
      def cmdline = scala.util.Try(os.read(proc / "cmdline")).getOrElse("")
      // The launcher execs java in its own process: asked until it has, or has ended.
      val deadline = System.nanoTime() + 60L * 1000 * 1000 * 1000
      while (!cmdline.contains("bankops.Main") && p.isAlive() && System.nanoTime() < deadline) Thread.sleep(20)
      assert(cmdline.contains("bankops.Main"), s"no JVM for $args: ${if (p.isAlive()) "still the launcher" else p.stderr.text()}")
      os.read(proc / "environ").split('\u0000').toList.map(_.split("=", 2)).collect { case Array(k, v) => k -> v }.toMap
    } finally { p.destroy(); p.waitFor(10000) }
  }

  test("the jobs that move records and the handler run with two malloc arenas; a caller's MALLOC_ARENA_MAX is kept") {
    launcherBuilt()
    def arenas(job: String, env: Map[String, String] = Map("MALLOC_ARENA_MAX" -> null)): Option[String] = {
      val args = job match {
        case "handler" => Seq("handler", "--bootstrap-server", "127.0.0.1:9", "--db-url", "jdbc:postgresql://127.0.0.1:9/x", "--timeout", "60s")
        case "topics" => Seq("topics", "list", "--bootstrap-server", "127.0.0.1:9", "--timeout", "60s")
        case data => Seq(data, "--topic", "t", "--bootstrap-server", "127.0.0.1:9", "--timeout", "60s")
      }
      jvmEnv(args, env).get("MALLOC_ARENA_MAX")
    }
    assertEquals(arenas("inspect"), Some("2"))
    assertEquals(arenas("handler"), Some("2"))
    assertEquals(arenas("inspect", Map("MALLOC_ARENA_MAX" -> "4")), Some("4"))
    assertEquals(arenas("topics"), None)
  }

  test("a job's first run records an archive, the next run uses it; output and exit code unchanged, nothing about it printed") {
    launcherBuilt()
    configArchives.foreach(f => os.remove(archives / f))
    val args = Seq("config", "show", "-o", "json")
    val first = run(args)
    assert(configArchives.exists(_.matches("""config-\w+\.\d+\.jsa""")), configArchives)
    val second = run(args)
    assert(configArchives.exists(_.matches("""config-\w+\.jsa""")), configArchives)
    // BANKOPS_CDS=require adds -Xshare:on: the JVM fails rather than start without the archive.
    val third = run(args, Map("BANKOPS_CDS" -> "require"))
    for (r <- List(first, second, third)) {
      assertEquals(r.exitCode, 0, r.err.text())
      // stdout stays pure JSON lines: no JVM or archive message among them
      r.out.lines().filter(_.nonEmpty).foreach(l => assert(io.circe.parser.parse(l).isRight, l))
      assert(!r.err.text().contains("cds"), r.err.text())
    }
    assertEquals(second.out.text(), first.out.text())
    assertEquals(third.out.text(), first.out.text())
  }

  test("the overview of jobs (no job, or --help) has an archive of its own, used from its second run; the same overview") {
    launcherBuilt()
    def help = if (os.exists(archives)) os.list(archives).map(_.last).filter(_.startsWith("help-")) else Nil
    help.foreach(f => os.remove(archives / f))
    val first = run(Seq("--help"))
    assert(help.exists(_.matches("""help-\w+\.\d+\.jsa""")), help)
    val second = run(Nil)
    assert(help.exists(_.matches("""help-\w+\.jsa""")), help)
    val third = run(Seq("--help"), Map("BANKOPS_CDS" -> "require"))
    for (r <- List(first, second, third)) assertEquals(r.exitCode, 0, r.err.text())
    assert(first.out.text().contains("Usage:") && first.out.text().contains("latency"), first.out.text())
    assertEquals(second.out.text(), first.out.text())
    assertEquals(third.out.text(), first.out.text())
  }

  test("--version is answered without a JVM, with the line the JVM prints") {
    launcherBuilt()
    // A JVM started with -XX:+PrintFlagsFinal prints its flags on stdout first: one line alone means none started.
    val r = run(Seq("--version"), Map("BANKOPS_JAVA_OPTS" -> "-XX:+PrintFlagsFinal"))
    assertEquals((r.exitCode, r.out.text()), (0, Version.line + "\n"))
    assert(Version.build.isDefined, "the tests' classes carry no build.properties")
    // Anything beside it is the JVM's to parse, as before.
    val other = run(Seq("--version", "--no-such-flag"), Map("BANKOPS_CDS" -> "off"))
    assertEquals(other.exitCode, 2, other.err.text())
  }

  test("JVM warnings go to stderr, never into stdout") {
    launcherBuilt()
    // A heap smaller than the young generation asked with it makes the JVM warn at start.
    val r = run(Seq("config", "show", "-o", "json"), Map("BANKOPS_JAVA_OPTS" -> "-Xmx128m -Xmn256m", "BANKOPS_CDS" -> "off"))
    assertEquals(r.exitCode, 0, r.err.text())
    assert(r.err.text().contains("[warning]"), r.err.text())
    r.out.lines().filter(_.nonEmpty).foreach(l => assert(io.circe.parser.parse(l).isRight, l))
  }

  test("a word that is no job never leaves an archive behind") {
    launcherBuilt()
    val r = run(Seq("inspekt"))
    assertEquals(r.exitCode, 2)
    assert(!os.exists(archives) || !os.list(archives).exists(_.last.startsWith("inspekt")), os.list(archives))
  }

  test("./bankops test refuses a bad BANKOPS_TEST_SHARDS in one line, exit 2, before sbt starts") {
    for (bad <- List("abc", "0", "9", " 3", "2.5")) {
      val r = run(Seq("test", "--quick"), Map("BANKOPS_TEST_SHARDS" -> bad))
      assertEquals(r.exitCode, 2, r.err.text())
      assertEquals(r.err.lines().filter(_.nonEmpty).toList,
        List(s"bankops: BANKOPS_TEST_SHARDS must be a number from 1 to 8, not '$bad'"))
      assertEquals(r.out.text(), "")
    }
  }
}

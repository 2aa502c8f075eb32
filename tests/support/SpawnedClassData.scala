package bankops.support

import bankops.support.IOSuite.runtime

import java.security.MessageDigest

/** A class-data archive (AppCDS) for the CLI JVMs the tests spawn ([[Jvm.bankops]]: handlers, `inspect --follow`, …).
  * A handler's start took 2.7 s of CPU here without one and 1.8 s with it, and a run spawns tens of them on two cores.
  * The launcher's archives (./bankops) are per job and for its classpath; this one is for the tests' classpath.
  *
  * Recorded once per build by [[ClassDataRecorder]] against the test sandbox (doctor, then a handler until it is
  * ready, in one JVM), and kept under .bankops/build/test-cds, keyed by
  * the JVM, its options and the classpath's jars. A stale or unreadable archive changes nothing: the JVM then loads its
  * classes as without one, and says nothing (its CDS log is off, so no test reads a JVM warning in a job's stderr).
  */
private[support] object SpawnedClassData {
  private val dir = Repo.root / ".bankops" / "build" / "test-cds"
  /** The JVM's class-data log off: a stale or unusable archive is simply not used, and no test reads a warning about it. */
  val Quiet: List[String] = List("-Xlog:cds=off", "-Xlog:cds+dynamic=off")

  /** The archive for JVMs with options `jvm` on `classpath`: its file named by what it depends on. */
  final case class Archive(jvm: List[String], classpath: String) {
    val file: os.Path = dir / s"${key(jvm, classpath)}.jsa"
  }

  /** The options that map the archive, made first if this build has none; none if it could not be made. */
  def options(archive: Archive): List[String] = {
    if (!os.exists(archive.file)) record(archive)
    existing(archive)
  }

  /** The options that map the archive if it was made before; none otherwise (nothing is recorded). */
  def existing(archive: Archive): List[String] =
    if (os.exists(archive.file)) Quiet :+ s"-XX:SharedArchiveFile=${archive.file}" else Quiet

  private def key(jvm: List[String], classpath: String): String = {
    val jars = classpath.split(java.io.File.pathSeparatorChar).toList.map { p =>
      val f = new java.io.File(p)
      s"$p ${f.lastModified} ${f.length}"
    }
    val text = (sys.props("java.home") :: sys.props("java.vm.version") :: jvm ++ jars).mkString("\n")
    MessageDigest.getInstance("SHA-256").digest(text.getBytes("UTF-8")).take(8).map("%02x".format(_)).mkString
  }

  /** The JVM writes the archive as it exits; it is moved into place whole, and earlier builds' archives removed. A
    * recording that fails (its bank not made, the recorder not started) leaves no archive, and the tests go on without.
    */
  private def record(archive: Archive): Unit = {
    import archive.{classpath, jvm}
    SandboxFixture.connection.unsafeRunSync()
    os.makeDir.all(dir)
    val partial = dir / s"${archive.file.last}.${ProcessHandle.current.pid}.partial"
    try {
      // A bank of its own for the handler, made by the test JVM; its instance name is the only one it ever has.
      val bank = BankFixture.create("cds").unsafeRunSync()
      try {
        val ready = os.temp.dir() / "handler.ready"
        val recorder = List("java") ++ jvm ++ Quiet ++ List(s"-XX:ArchiveClassesAtExit=$partial", "-cp", classpath,
          s"-Dbankops.home=${Repo.root}", "bankops.support.ClassDataRecorder", ready.toString, "doctor", "--sandbox-dir",
          SandboxFixture.layout.dir.toString, "--no-context", "--") ++
          bank.handlerArgs ++
          List("--instance", "class-data", "--command-config", BankFixture.handlerIdentity.toString, "--ready-file", ready.toString)
        val p = Children.spawn(os.proc(recorder), env = SandboxFixture.env, stdout = os.Path("/dev/null"), stderr = os.Path("/dev/null"))
        // Whatever doctor and the handler find, the exit writes the archive; one that never ends leaves none.
        if (!p.waitFor(180000)) { p.wrapped.destroyForcibly(); p.waitFor(10000) }
      } finally bank.remove.attempt.unsafeRunSync() // once the archive is written, not when the asking test's suite ends
    } catch {
      case scala.util.control.NonFatal(e) => System.err.println(s"SpawnedClassData: no archive recorded, the tests go on without: $e")
    }
    if (os.exists(partial)) {
      os.list(dir).filter(_.last.endsWith(".jsa")).foreach(os.remove)
      os.move(partial, archive.file, atomicMove = true)
    }
  }
}

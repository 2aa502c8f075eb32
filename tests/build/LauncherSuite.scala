package bankops.build

import bankops.support.Repo

/** The `./bankops` launcher's class-data archives (AppCDS), run for real. */
class LauncherSuite extends munit.FunSuite {

  private val launcher = Repo.root / "bankops"
  private val archives = Repo.root / ".bankops" / "build" / "cds"

  test("the launcher's job list for class-data archives is exactly the CLI's jobs") {
    val line = os.read.lines(launcher).find(_.startsWith("CDS_JOBS=")).getOrElse(fail("no CDS_JOBS= line in ./bankops"))
    val listed = line.stripPrefix("CDS_JOBS=").stripPrefix("\"").stripSuffix("\"").split(' ').toList
    assertEquals(listed.sorted, bankops.cli.Jobs.all.map(_.name).sorted)
  }

  test("a job's first run records an archive, the next run uses it; output and exit code unchanged, nothing about it printed") {
    assume(os.exists(Repo.root / ".bankops" / "build" / "stamp"), "the launcher's classpath is built by ./bankops test")
    os.remove.all(archives / "config.jsa")
    def run(env: Map[String, String] = Map.empty) =
      os.proc(launcher, "config", "show", "-o", "json").call(cwd = Repo.root, check = false, stderr = os.Pipe, env = env)
    val first = run()
    val recorded = os.list(archives).map(_.last).filter(_.startsWith("config."))
    assert(recorded.exists(_.matches("""config\.\d+\.jsa""")), recorded)
    val second = run()
    assert(os.exists(archives / "config.jsa") && os.size(archives / "config.jsa") > 0, os.list(archives))
    // -Xshare:on makes the JVM fail rather than start without the archive: proof it is used.
    val third = run(Map("BANKOPS_JAVA_OPTS" -> "-Xshare:on"))
    for (r <- List(first, second, third)) {
      assertEquals(r.exitCode, 0, r.err.text())
      assert(!r.out.text().contains("cds") && !r.err.text().contains("cds"), r.out.text() + r.err.text())
    }
    assertEquals(second.out.text(), first.out.text())
    assertEquals(third.out.text(), first.out.text())
  }

  test("a word that is no job never leaves an archive behind") {
    assume(os.exists(Repo.root / ".bankops" / "build" / "stamp"), "the launcher's classpath is built by ./bankops test")
    val r = os.proc(launcher, "inspekt").call(cwd = Repo.root, check = false, stderr = os.Pipe)
    assertEquals(r.exitCode, 2)
    assert(!os.exists(archives) || !os.list(archives).exists(_.last.startsWith("inspekt")), os.list(archives))
  }
}

package bankops.support

/** [[Children]]: what a test JVM started is ended when that JVM exits, as os-lib's `destroyOnExit` would. */
class ChildrenSuite extends munit.FunSuite {
  test("a process spawned through Children is killed when the JVM that spawned it exits") {
    val java = List("java", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", System.getProperty("java.class.path"))
    val r = os.proc(java :+ "bankops.support.ChildrenSuite", "sleep", "600").call(check = false, stderr = os.Pipe, timeout = 60000)
    assertEquals(r.exitCode, 0, r.err.text())
    val pid = r.out.text().trim.toLong
    val handle = ProcessHandle.of(pid)
    // Killed by the hook as the JVM ended: gone, or at most a zombie on its way out (its parent, that JVM, is gone too).
    val deadline = System.nanoTime() + 10L * 1000 * 1000 * 1000
    while (handle.filter(_.isAlive).isPresent && System.nanoTime() < deadline) Thread.sleep(50)
    assert(!handle.filter(_.isAlive).isPresent, s"pid $pid still alive after its parent JVM exited")
  }
}

/** The JVM of the test above: spawns its arguments through Children, prints the pid, and exits. */
object ChildrenSuite {
  def main(args: Array[String]): Unit = {
    val p = Children.spawn(os.proc(args.toSeq), stdout = os.Path("/dev/null"), stderr = os.Path("/dev/null"))
    println(p.wrapped.pid())
  }
}

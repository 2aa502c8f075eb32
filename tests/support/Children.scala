package bankops.support

/** Processes the tests start, killed if still running when the test JVM exits. os-lib's own `destroyOnExit` watches each
  * process with a thread of its own that asks whether it is alive every millisecond for its whole life: with a few
  * handlers and jobs running at once, those threads were 10% of the test JVM's CPU samples (async-profiler, 480 s of a
  * whole run, 2026-11-30), beside the context switches on two cores. One shutdown hook does the same job here.
  */
object Children {
  private val started = java.util.concurrent.ConcurrentHashMap.newKeySet[os.SubProcess]()

  Runtime.getRuntime.addShutdownHook(new Thread(() => started.forEach(p => if (p.isAlive()) { p.wrapped.destroyForcibly(); () })))

  /** `cmd` started as os-lib's `spawn` starts it, ended when the test JVM ends at the latest. */
  def spawn(cmd: os.proc, cwd: os.Path = null, env: Map[String, String] = null, stdin: os.ProcessInput = os.Pipe,
            stdout: os.ProcessOutput = os.Pipe, stderr: os.ProcessOutput = os.Inherit): os.SubProcess = {
    started.removeIf(!_.isAlive())
    val p = cmd.spawn(cwd = cwd, env = env, stdin = stdin, stdout = stdout, stderr = stderr, destroyOnExit = false)
    started.add(p)
    p
  }
}

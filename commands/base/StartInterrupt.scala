package bankops.base

import sun.misc.Signal

/** Ctrl-C or SIGTERM before a job holds the signals itself ([[Interrupt]]): one line and 128 plus the signal's number,
  * where the JVM's own handling exited in silence. Installed as the program starts; a job's handler replaces it while
  * held and gives it back after. The exit still runs the shutdown hooks, so a job's finalizers clean up as before.
  */
object StartInterrupt {
  @volatile private var job: Option[String] = None

  def install(): Unit = List("INT", "TERM").foreach { name =>
    Signal.handle(new Signal(name),
      (s: Signal) => {
        System.err.println(s"bankops: interrupted (SIG$name) " + job.fold("while starting: nothing done")(j => s"during $j, before it finished"))
        sys.exit(128 + s.getNumber)
      })
  }

  /** From here on the job named runs: an interruption no longer means nothing was done. */
  def running(name: String): Unit = job = Some(name)

  /** `BANKOPS_START_PAUSE=FILE` (tests): hold, as the program starts with the handlers installed, until FILE exists. */
  def holdIfAsked(env: Map[String, String]): Unit = env.get("BANKOPS_START_PAUSE").foreach { f =>
    val file = java.nio.file.Paths.get(f).toAbsolutePath
    System.err.println(s"bankops: holding until $file exists (BANKOPS_START_PAUSE)")
    while (!java.nio.file.Files.exists(file)) Thread.sleep(50)
  }
}

package bankops.support

import cats.effect.ExitCode

/** The JVM that records [[SpawnedClassData]]'s archive: `bankops doctor`, then `bankops handler` until it is ready, in
  * one JVM, so the archive holds the classes of both: what every job shares (the Kafka, TLS, registry and PostgreSQL
  * clients, cats-effect and the CLI) and what a handler adds (a group member, a transactional producer, the ledger).
  * Most JVMs the tests spawn are handlers: recorded by doctor alone, one took 1.8 CPU-s to ready; with both, ~1.5.
  *
  * Arguments: the handler's ready file, doctor's arguments, `--`, the handler's. The archive is written as it exits.
  */
object ClassDataRecorder {
  def main(args: Array[String]): Unit = {
    val ready = os.Path(args.head)
    val (doctor, handler) = args.toList.tail.span(_ != "--")
    val runtime = bankops.Main.forkJoin
    // Whatever doctor finds; its classes are loaded either way.
    bankops.Main.run(doctor).unsafeRunSync()(runtime)
    val running = bankops.Main.run(handler.drop(1)).unsafeToFuture()(runtime)
    val deadline = System.nanoTime() + 90L * 1000 * 1000 * 1000
    while (!os.exists(ready) && !running.isCompleted && System.nanoTime() < deadline) Thread.sleep(50)
    // A handler that ended or never got ready still loaded most of its classes: the archive is written either way.
    sys.exit(if (os.exists(ready)) ExitCode.Success.code else ExitCode.Error.code)
  }
}

package bankops.support

import cats.effect.{Deferred, FiberIO, IO, Resource}

import java.io.{FileOutputStream, PrintStream}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicReference}
import scala.concurrent.duration._

import bankops.Jobs
import bankops.base.{Cli, Shell}

/** `bankops handler` run in the test JVM, for a test that only starts it and asks it to stop: the same job, arguments
  * and environment as a spawned one, its stdout and stderr appended to its log, and [[stop]] in place of SIGTERM (the
  * switch its [[Shell]] holds, so the JVM's own signals stay the test JVM's). A spawned handler costs a JVM's start,
  * its class loading and JIT and its stores' PBKDF2 (1.5 to 1.8 CPU-s before it consumes); the tests that kill one, or
  * send it real signals, still spawn it ([[BankFixture.spawnHandler]]).
  */
final class InProcessHandler private (fiber: FiberIO[Int], ended: Deferred[IO, Int], requested: AtomicBoolean,
                                      heard: AtomicReference[Option[String => Unit]], out: PrintStream) {

  /** Still running (it has not returned its exit code). */
  def isAlive: IO[Boolean] = ended.tryGet.map(_.isEmpty)

  /** Its exit code once it has ended, within `within`. */
  def exited(within: FiniteDuration): IO[Int] =
    ended.get.timeoutTo(within, IO.raiseError(new AssertionError(s"the in-process handler did not end within $within")))

  /** As SIGTERM: it finishes the batch in hand and returns; its exit code. */
  def stop: IO[Int] = IO {
    if (!requested.getAndSet(true)) heard.get.foreach(_("SIGTERM"))
  } >> exited(60.seconds)

  /** For a test's clean-up: asked to stop, then cancelled if it has not ended within 60 s. */
  def end: IO[Unit] = stop.void.handleErrorWith(_ => fiber.cancel) >> IO(out.close())
}

object InProcessHandler {

  /** Starts `bankops ARGS` (a handler) with `env` only, logging to `log`. A crash point halts the JVM, so it is refused. */
  def start(args: List[String], env: Map[String, String], log: os.Path): IO[InProcessHandler] = IO.defer {
    require(!env.contains("BANKOPS_HANDLER_CRASH"), "a crash point halts the JVM it runs in: spawn that handler")
    val out = new PrintStream(new FileOutputStream(log.toIO, true), true, "UTF-8")
    val requested = new AtomicBoolean(false)
    val heard = new AtomicReference[Option[String => Unit]](None)
    // The handler's stop flag: a request made before it listens is heard as it starts listening, and heard once however
    // the request and its start interleave.
    val stops = (tell: String => Unit) => {
      val told = new AtomicBoolean(false)
      val once = (name: String) => if (!told.getAndSet(true)) tell(name)
      Resource.make(IO { heard.set(Some(once)); if (requested.get) once("SIGTERM") })(_ => IO(heard.set(None))).map(_ => () => requested.get)
    }
    val shell = Shell(env, out, out, stdoutIsTerminal = false, stderrIsTerminal = false, verbose = false, os.temp.dir(),
      new java.io.ByteArrayInputStream(Array.emptyByteArray), stops = stops)
    for {
      ended <- Deferred[IO, Int]
      fiber <- Cli.run(args, shell, Jobs.all).map(_.code)
        .handleError { e => out.println(s"in-process handler failed: $e"); 1 }
        .flatTap(ended.complete).start
    } yield new InProcessHandler(fiber, ended, requested, heard, out)
  }
}

package bankops.support

import cats.effect.IO

import scala.concurrent.duration._

/** `bankops ARGS` in a JVM of its own against the test sandbox, for what only a real process shows: signals. SIGINT's
  * default action is restored (a background process of a non-interactive shell would otherwise ignore it).
  */
final case class CliProcess(process: os.SubProcess, out: os.Path, err: os.Path) {
  /** Waits (at most `within`) until `ready` holds; fails at once if the process ends first, and either way with the end of
    * its stderr, so a failure says why.
    */
  def await(within: FiniteDuration, what: String)(ready: IO[Boolean]): IO[Unit] = {
    val why = IO.blocking(os.read.lines(err).takeRight(5).mkString("\n  "))
    (IO.sleep(200.millis) >> ready.flatMap(r =>
      if (r || process.isAlive()) IO.pure(r)
      else why.flatMap(e => IO.raiseError(new AssertionError(s"no $what: the process exited ${process.exitCode()} before; stderr:\n  $e")))))
      .iterateUntil(identity).void.timeoutTo(within, why.flatMap(e => IO.raiseError(new AssertionError(s"no $what within $within; stderr:\n  $e"))))
  }

  /** The exit code, once the process ends (at most `within`). */
  def exited(within: FiniteDuration): IO[Int] =
    IO.blocking(process.waitFor(within.toMillis)).flatMap(ended =>
      if (ended) IO.blocking(process.exitCode()) else IO.raiseError(new AssertionError(s"still running after $within: ${os.read(err)}")))

  /** Ctrl-C, then the exit code (within 60 s). */
  def interrupt: IO[Int] =
    IO.blocking(os.proc("kill", "-INT", process.wrapped.pid().toString).call()) >> IO.blocking { process.waitFor(60000); process.exitCode() }
}

object CliProcess {
  def start(args: String*): IO[CliProcess] = startWith(Map.empty, args: _*)

  /** As `start`, with `env` added to the sandbox's variables (a fault point's). */
  def startWith(env: Map[String, String], args: String*): IO[CliProcess] =
    SandboxFixture.connection >> BareProcess.spawn(SandboxFixture.env ++ env, args)

  /** As `start`, with JVM options after the tests' own (a small heap; C2 for a process that moves much data). */
  def startJvm(jvm: List[String], args: String*): IO[CliProcess] =
    SandboxFixture.connection >> BareProcess.spawn(SandboxFixture.env, args, jvm)
}

/** `bankops ARGS` with `env` alone: no sandbox started or named, for a process stopped before it reaches any service (a
  * suite using only this needs no sandbox: the quick tier's pattern in ./bankops does not count it).
  */
object BareProcess {
  /** A JVM never handles a signal ignored at its start: where coreutils' env can, the child gets SIGINT's default back. */
  private lazy val defaultSigint: List[String] =
    if (scala.util.Try(os.proc("env", "--default-signal=INT", "true").call(check = false, stderr = os.Pipe).exitCode == 0).getOrElse(false))
      List("env", "--default-signal=INT")
    else Nil

  def spawn(env: Map[String, String], args: Seq[String], jvm: List[String] = Nil): IO[CliProcess] = IO.blocking {
    val (out, err) = (os.temp(suffix = ".out"), os.temp(suffix = ".err"))
    val p = Children.spawn(os.proc(defaultSigint ++ Jvm.bankops(args, jvm)), env = env, stdout = os.PathRedirect(out), stderr = os.PathRedirect(err))
    CliProcess(p, out, err)
  }
}

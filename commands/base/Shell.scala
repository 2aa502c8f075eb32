package bankops.base

import cats.effect.{IO, Resource}

import java.io.PrintStream

/** What a command may touch of the outside world besides services: the
  * environment, the two output streams, whether a person is watching and how a service is asked to stop.
  * Tests build one over buffers; the CLI builds it over the process.
  */
final case class Shell(
    env: Map[String, String],
    out: PrintStream,
    err: PrintStream,
    stdoutIsTerminal: Boolean,
    stderrIsTerminal: Boolean,
    verbose: Boolean,
    home: os.Path,
    // Standard input, for the jobs that read records from it (produce); tests give a buffer.
    in: java.io.InputStream = System.in,
    stdinIsTerminal: Boolean = false,
    // Where the sandbox and the demo's chart live: `home/.bankops` in a checkout; an installed bankops's launcher
    // names XDG's data directory.
    dataDir: Option[os.Path] = None,
    // How a service hears it is asked to stop (it is told the request's name): the process's SIGINT and SIGTERM; a
    // test that runs a service in its own JVM holds a switch instead, and its JVM's signals stay its own.
    stops: (String => Unit) => Resource[IO, () => Boolean] = Interrupt.onStop
) {
  def data: os.Path = dataDir.getOrElse(home / ".bankops")

  def println(line: String): IO[Unit] = IO.blocking(out.println(line))
  def print(text: String): IO[Unit] = IO.blocking(out.print(text))
  // What goes to stderr quotes settings and library messages: secrets are masked there ([[Redact]]).
  def info(line: String): IO[Unit] = IO.blocking(err.println(Redact(line)))
  def warn(line: String): IO[Unit] = IO.blocking(err.println(s"warning: ${Redact(line)}"))
  def debug(line: String): IO[Unit] = if (verbose) IO.blocking(err.println(Redact(line))) else IO.unit
}

object Shell {

  /** A job run inside another with its output kept aside: `f` gets a shell over buffers (no terminal, no GitHub step
    * summary of its own) and the lines it wrote to stderr come back with its result, for the caller to quote on failure.
    */
  def captured[A](shell: Shell)(f: Shell => IO[A]): IO[Captured[A]] = IO.defer {
    val (out, err) = (new java.io.ByteArrayOutputStream(), new java.io.ByteArrayOutputStream())
    val quiet = shell.copy(out = new PrintStream(out, true, "UTF-8"), err = new PrintStream(err, true, "UTF-8"), stdoutIsTerminal = false,
      stderrIsTerminal = false, in = new java.io.ByteArrayInputStream(Array.emptyByteArray), stdinIsTerminal = false,
      env = shell.env - StepSummary.Variable)
    f(quiet).map(Captured(_, new String(err.toByteArray, java.nio.charset.StandardCharsets.UTF_8).linesIterator.toList))
  }

  /** What a job run by [[captured]] returned, and the lines it wrote to stderr. */
  final case class Captured[A](result: A, stderr: List[String]) {
    /** Its last lines joined, to quote in the caller's error. */
    def lastLines(n: Int): String = stderr.takeRight(n).mkString(" | ")
  }

  /** The launcher says whether each stream is a terminal (`[ -t 1 ]`); the JVM alone cannot tell them apart. */
  def system(env: Map[String, String], verbose: Boolean): Shell = {
    def tty(name: String): Boolean =
      sys.props.get(s"bankops.tty.$name").map(_ == "true").getOrElse(System.console() != null)
    val home = sys.props.get("bankops.home").orElse(env.get("BANKOPS_HOME")).map(os.Path(_, os.pwd)).getOrElse(os.pwd)
    val data = sys.props.get("bankops.data").filter(_.nonEmpty).map(os.Path(_, os.pwd))
    Shell(env, System.out, System.err, tty("stdout"), tty("stderr"), verbose, home, System.in, tty("stdin"), data)
  }
}

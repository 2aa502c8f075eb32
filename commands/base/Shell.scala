package bankops.base

import cats.effect.IO

import java.io.PrintStream

/** What a command may touch of the outside world besides services: the
  * environment, the two output streams and whether a person is watching.
  * Tests build one over buffers; the CLI builds it over the process.
  */
final case class Shell(
    env: Map[String, String],
    out: PrintStream,
    err: PrintStream,
    stdoutIsTerminal: Boolean,
    stderrIsTerminal: Boolean,
    verbose: Boolean,
    home: os.Path
) {
  def println(line: String): IO[Unit] = IO.blocking(out.println(line))
  // What goes to stderr quotes settings and library messages: secrets are masked there ([[Redact]]).
  def info(line: String): IO[Unit] = IO.blocking(err.println(Redact(line)))
  def warn(line: String): IO[Unit] = IO.blocking(err.println(s"warning: ${Redact(line)}"))
  def debug(line: String): IO[Unit] = if (verbose) IO.blocking(err.println(Redact(line))) else IO.unit
}

object Shell {

  /** The launcher says whether each stream is a terminal (`[ -t 1 ]`); the JVM alone cannot tell them apart. */
  def system(env: Map[String, String], verbose: Boolean): Shell = {
    def tty(name: String): Boolean =
      sys.props.get(s"bankops.tty.$name").map(_ == "true").getOrElse(System.console() != null)
    val home = sys.props.get("bankops.home").orElse(env.get("BANKOPS_HOME")).map(os.Path(_, os.pwd)).getOrElse(os.pwd)
    Shell(env, System.out, System.err, tty("stdout"), tty("stderr"), verbose, home)
  }
}

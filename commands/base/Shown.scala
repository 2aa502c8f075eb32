package bankops.base

import cats.effect.{ExitCode, IO}

/** What a job's report comes to, as data: its output in the format asked for (or the terminal's), and the exit code
  * the run ends with. A job's renderer makes it; [[Shown.show]] is the one place it reaches the user.
  */
final case class Shown(format: Option[OutputFormat], output: Rendered, code: ExitCode)

object Shown {
  /** For a job that said everything as it ran (progress and summary lines on stderr): only its exit code is left. */
  def exit(code: ExitCode): Shown = Shown(None, Rendered.empty, code)

  def show(s: Shown, shell: Shell): IO[ExitCode] = Rendered.show(s.output, OutputFormat.resolve(s.format, shell), shell).as(s.code)
}

package bankops.base

import cats.effect.{ExitCode, IO}
import com.monovore.decline.Opts

/** One job of the CLI, at its boundary: options parsed to an `O`, a run that returns a typed report `R` (what it found
  * or did, as data; progress may go to stderr as it runs, records a job streams to stdout), and the one renderer from
  * that report to what is shown and the exit code. The top layer calls [[run]] and reads the report's fields; the CLI
  * calls both through [[subcommand]].
  */
final case class Job[O, R](name: String, header: String, example: String, opts: Opts[O])(val run: (O, Shell) => IO[R],
                                                                                         val render: (O, R) => Shown) {
  def subcommand: Opts[Shell => IO[ExitCode]] =
    Opts.subcommand(name, s"$header Example: $example")(opts.map(o => (shell: Shell) => run(o, shell).flatMap(r => Shown.show(render(o, r), shell))))
}

object Job {
  /** A job of several subcommands whose runs are not yet split from their output: each subcommand's action prints as it
    * goes and returns its exit code, the report it renders.
    */
  type Actions = Job[Shell => IO[ExitCode], ExitCode]

  def actions(name: String, header: String, example: String, opts: Opts[Shell => IO[ExitCode]]): Actions =
    Job(name, header, example, opts)((action, shell) => action(shell), (_, code) => Shown.exit(code))
}

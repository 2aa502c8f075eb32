package bankops.base

import cats.effect.{ExitCode, IO}
import com.monovore.decline.Opts

/** One job of the CLI, at its boundary: options parsed to an `O`, a run that returns a typed report `R` (what it found
  * or did, as data; progress may go to stderr as it runs, records a job streams to stdout), and the one renderer from
  * that report to what is shown and the exit code. The top layer calls [[run]] and reads the report's fields; the CLI
  * calls both through [[subcommand]].
  */
final class Job[O, R](val name: String, val header: String, val example: String, val opts: Opts[O])(val run: (O, Shell) => IO[R],
                                                                                                    val render: (O, R) => Shown) {
  def subcommand: Opts[Shell => IO[ExitCode]] =
    Opts.subcommand(name, s"$header Example: $example")(opts.map(o => (shell: Shell) => run(o, shell).flatMap(r => Shown.show(render(o, r), shell))))
}

object Job {
  def apply[O, R](name: String, header: String, example: String, opts: Opts[O])(run: (O, Shell) => IO[R], render: (O, R) => Shown): Job[O, R] =
    new Job(name, header, example, opts)(run, render)

  /** One subcommand of a job of several, at the same boundary as a job: options, a typed report, its renderer. */
  final class Sub[O, R](val name: String, val help: String, val opts: Opts[O])(val run: (O, Shell) => IO[R], val render: (O, R) => Shown) {
    def chosen: Opts[Chosen] = Opts.subcommand(name, help)(Job.chosen(opts)(run, render))
  }

  object Sub {
    def apply[O, R](name: String, help: String, opts: Opts[O])(run: (O, Shell) => IO[R], render: (O, R) => Shown): Sub[O, R] =
      new Sub(name, help, opts)(run, render)
  }

  /** Options of a job's form without a subcommand name (`capture --topic ...` beside `capture show`), typed as a [[Sub]]. */
  def chosen[O, R](opts: Opts[O])(run: (O, Shell) => IO[R], render: (O, R) => Shown): Opts[Chosen] =
    opts.map(o => Chosen(shell => run(o, shell).map(render(o, _))))

  /** The subcommand the command line chose, with its options bound: its run comes to what its renderer shows. */
  final case class Chosen(run: Shell => IO[Shown])

  /** A job of several subcommands, each typed on its own: what the job shows is what the chosen one's renderer made. */
  type Of = Job[Chosen, Shown]

  def of(name: String, header: String, example: String)(subs: Opts[Chosen]*): Of =
    Job(name, header, example, subs.reduce(_ orElse _))((chosen, shell) => chosen.run(shell), (_, shown) => shown)
}

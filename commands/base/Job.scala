package bankops.base

import cats.effect.{ExitCode, IO}
import com.monovore.decline.Opts

/** One job of the CLI: a subcommand whose options parse to an action run in a [[Shell]]. */
final case class Job(name: String, header: String, example: String, opts: Opts[Shell => IO[ExitCode]]) {
  def subcommand: Opts[Shell => IO[ExitCode]] = Opts.subcommand(name, s"$header Example: $example")(opts)
}

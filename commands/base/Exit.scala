package bankops.base

import cats.effect.ExitCode

/** The documented exit codes, by name: docs/guide/exit-codes.md's table and [[Failure]]'s classes say when each is used. */
object Exit {
  val Ok: ExitCode = ExitCode.Success
  val Difference: ExitCode = ExitCode(Failure.ExitDifference)
  val BadInput: ExitCode = ExitCode(Failure.ExitBadInput)
  val Unavailable: ExitCode = ExitCode(Failure.ExitUnavailable)
  val NotAuthorized: ExitCode = ExitCode(Failure.ExitNotAuthorized)
  /** The code of a class of failure a service named. */
  def of(kind: Failure.Kind): ExitCode = ExitCode(kind.exitCode)

  /** 1 when a check found a difference, else 0. */
  def differsIf(differs: Boolean): ExitCode = if (differs) Difference else Ok

  /** Ctrl-C, as a shell reports a command ended by SIGINT (128 + 2). */
  val Interrupted: ExitCode = ExitCode(130)

  /** Standard output closed under a job that writes records to it (`| head`), as a shell reports a command ended by
    * SIGPIPE (128 + 13): a pipeline with `pipefail` sees what it sees of other tools.
    */
  val OutputClosed: ExitCode = ExitCode(141)
}

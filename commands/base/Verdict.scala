package bankops.base

import cats.effect.ExitCode

/** How a gated change ended (plan, gate, changes, asked again), as data. `apply`, `topics apply` and `schemas register`
  * each decide one from what they found and did, with a pure function of their report, and show it last: its lines on
  * stderr, its exit code the run's. Said once here, so the three agree on what each ending exits with.
  */
sealed trait Verdict {
  def code: ExitCode
  def lines: List[String]
  final def rendered: Rendered = Rendered.all(lines.map(Rendered.note))
}

object Verdict {

  /** Nothing was changed because nothing was asked to be: no changes pending, or only shown (`--dry-run`, exit 1 when
    * something is pending, as a plan does).
    */
  final case class Unchanged(pending: Boolean, lines: List[String] = Nil) extends Verdict {
    def code: ExitCode = Exit.differsIf(pending)
  }

  /** The gate refused before anything changed: each refusal, then the line saying nothing changed. Its exit code is the
    * refusals' class (the authorizer's 4, an invalid request's 2, an unreachable service's 3), else 1.
    */
  final case class Refused(reasons: List[String], line: String, failure: Failure.Kind) extends Verdict {
    def code: ExitCode = Exit.of(failure)
    def lines: List[String] = reasons :+ line
  }

  /** A change failed part way: what was made stays made, the steps after it were not taken. */
  final case class Stopped(line: String, failure: Failure.Kind) extends Verdict {
    def code: ExitCode = Exit.of(failure)
    def lines: List[String] = List(line)
  }

  /** Every change was made and, asked again, the target still differs (exit 1); or it matches (exit 0). */
  final case class Applied(line: String, matches: Boolean) extends Verdict {
    def code: ExitCode = Exit.differsIf(!matches)
    def lines: List[String] = List(line)
  }
}

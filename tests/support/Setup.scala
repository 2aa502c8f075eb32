package bankops.support

import cats.effect.IO

/** A test's setup steps, each of which must succeed before the test goes on: a failed step fails the test at once,
  * naming the step, its exit code and its stderr, instead of showing up later as a timeout or a puzzling assertion.
  */
object Setup {
  /** `r` when it exited 0; otherwise the test fails naming `step`. */
  def succeeded(step: String)(r: TestShell.Result): IO[TestShell.Result] =
    IO.raiseUnless(r.code == 0)(new AssertionError(s"setup step '$step' failed (exit ${r.code}): ${r.err.trim}")).as(r)

  /** `bankops ARGS` against the test sandbox as a setup step. */
  def cli(step: String, args: String*): IO[TestShell.Result] = SandboxFixture.cli(args: _*).flatMap(succeeded(step))
}

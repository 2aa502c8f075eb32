package bankops.jobs.latency

import cats.syntax.all._

/** The extra load of each step, in records per second: a list (`0,200,500`) or a ramp (`START:STEP:END`). */
private[latency] object LoadSteps {
  /** Enough for a day at 30 s a step; more is a typo. */
  val MaxSteps = 1000

  def parseList(text: String): Either[String, List[Int]] =
    text.split(",", -1).toList.traverse(rate(_, "--load")).flatMap(checked(_, "--load"))

  def parseRamp(text: String): Either[String, List[Int]] =
    text.split(":", -1).toList match {
      case List(a, b, c) =>
        (rate(a, "--ramp START"), rate(b, "--ramp STEP"), rate(c, "--ramp END")).tupled.flatMap {
          case (_, 0, _) => Left(s"--ramp STEP must be above 0 in '$text'")
          case (start, _, end) if end < start => Left(s"--ramp END must not be below START in '$text'")
          case (start, step, end) => checked((start.toLong to end.toLong by step.toLong).map(_.toInt).toList, "--ramp")
        }
      case _ => Left(s"--ramp must be START:STEP:END (e.g. 0:500:3000), not '$text'")
    }

  private def rate(s: String, what: String): Either[String, Int] =
    s.trim.toIntOption.filter(_ >= 0).toRight(s"$what must be records per second (a whole number, 0 or more), not '${s.trim}'")

  private def checked(steps: List[Int], what: String): Either[String, List[Int]] =
    if (steps.size > MaxSteps) Left(s"$what gives ${steps.size} steps; at most $MaxSteps") else Right(steps)
}

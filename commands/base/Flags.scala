package bankops.base

import cats.data.NonEmptyList
import cats.syntax.all._
import com.monovore.decline.{Argument, Opts}

import scala.concurrent.duration._

/** The flags every job shares a rule for, written once: counts and rates that must be positive, and durations, which
  * take one syntax everywhere: a bare number of seconds (`30`, as `--timeout` always took) or [[DurationText]] (`90s`,
  * `15m`, `1h30m`).
  */
object Flags {
  def positive[A: Argument](name: String, help: String, metavar: String = "N")(implicit n: Numeric[A]): Opts[A] =
    Opts.option[A](name, help, metavar = metavar).mapValidated(v =>
      if (n.gt(v, n.zero)) v.validNel else s"--$name must be positive, not $v".invalidNel)

  def nonNegative[A: Argument](name: String, help: String, metavar: String = "N")(implicit n: Numeric[A]): Opts[A] =
    Opts.option[A](name, help, metavar = metavar).mapValidated(v =>
      if (n.gteq(v, n.zero)) v.validNel else s"--$name must be 0 or more, not $v".invalidNel)

  /** `--name VALUE`, read by the value type's own `Argument` (its syntax and metavar written once, beside the type).
    * A refusal is told after the flag's name (decline's reader knows no name): the type's messages read on from it,
    * e.g. `--from 'soon' is not a start position (...)`.
    */
  def option[A](name: String, help: String, short: String = "", metavar: String = "")(implicit arg: Argument[A]): Opts[A] =
    Opts.option[String](name, help, short, metavarOf(metavar)).mapValidated(named(name, _))

  /** [[option]], repeatable. */
  def options[A](name: String, help: String, short: String = "", metavar: String = "")(implicit arg: Argument[A]): Opts[NonEmptyList[A]] =
    Opts.options[String](name, help, short, metavarOf(metavar)).mapValidated(_.traverse(named(name, _)))

  private def metavarOf[A](chosen: String)(implicit arg: Argument[A]) = if (chosen.nonEmpty) chosen else arg.defaultMetavar

  private def named[A](name: String, s: String)(implicit arg: Argument[A]) = arg.read(s).leftMap(_.map(e => s"--$name $e"))

  /** An `Argument` from a type's parser: the parser's messages read on from a flag's name (see [[option]]). */
  def argument[A](metavar: String)(parse: String => Either[String, A]): Argument[A] =
    Argument.from(metavar)(s => parse(s).toValidatedNel)

  /** A duration above 0, or 0 too when `zero` says what 0 means. */
  def duration(name: String, help: String, zero: Boolean = false, short: String = ""): Opts[FiniteDuration] =
    Opts.option[String](name, help, short, "DURATION").mapValidated { s =>
      parseDuration(s).leftMap(e => s"--$name: $e")
        .filterOrElse(d => d > Duration.Zero || (zero && d == Duration.Zero), s"--$name must be more than 0, not '$s'").toValidatedNel
    }

  /** `--timeout`: how long a job waits for a service before exit 3. */
  def timeout(default: FiniteDuration): Opts[FiniteDuration] =
    duration("timeout", s"How long to wait for a service before giving up with exit 3: seconds, or e.g. 90s, 2m (default ${default.toSeconds}s).")
      .withDefault(default)

  def parseDuration(s: String): Either[String, FiniteDuration] =
    s.trim.toLongOption.filter(_ >= 0).map(_.seconds).toRight("").orElse(DurationText.parse(s))
}

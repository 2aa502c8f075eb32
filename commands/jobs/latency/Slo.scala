package bankops.jobs.latency

import com.monovore.decline.Argument

import scala.concurrent.duration._

import bankops.base.Flags

/** A latency objective a step must meet: `p99<200ms`, `balance:p99.9<1s`, `db:max<2s`; the measure defaults to feedback. */
private[latency] final case class Slo(measure: Measure, percentile: Double, limit: FiniteDuration, text: String) {
  /** Why the step breaks it, if it does; a measure the run did not take breaks nothing. */
  def broken(step: StepResult): Option[String] =
    step.measures.get(measure).filter(_.count > 0).flatMap { s =>
      val value = s.percentileMs(percentile)
      if (value < limit.toNanos / 1e6) None
      else Some(f"step ${step.index + 1} (${step.load.asked} records/s): $text broken, ${Slo.label(percentile)} of ${measure.name} was $value%.1f ms")
    }
}

private[latency] object Slo {
  private val Syntax = """(?:([a-z]+):)?(p[0-9]+(?:\.[0-9]+)?|max)\s*<\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s)""".r

  def label(p: Double): String = if (p >= 100) "max" else s"p${BigDecimal(p).bigDecimal.stripTrailingZeros.toPlainString}"

  def parse(text: String): Either[String, Slo] =
    text.trim match {
      case Syntax(m, q, n, unit) =>
        for {
          measure <- Option(m).fold[Either[String, Measure]](Right(Measure.Feedback))(name =>
            Measure.all.find(_.name == name).toRight(s"'$text': the measure must be feedback, balance or db, not '$name'"))
          percentile <- if (q == "max") Right(100.0)
          else q.drop(1).toDoubleOption.filter(p => p > 0 && p < 100)
            .toRight(s"'$text': a percentile is above 0 and below 100 (p50, p99, p99.9) or max")
          amount = BigDecimal(n)
          limit = if (unit == "s") (amount * 1000).toLong.millis else amount.toLong.millis
          _ <- if (limit > Duration.Zero) Right(()) else Left(s"'$text': the limit must be above 0")
        } yield Slo(measure, percentile, limit, text.trim)
      case _ => Left(s"must look like p99<200ms or balance:p99.9<1s (measure feedback, balance or db; p50..p99.9 or max; ms or s), not '$text'")
    }

  implicit val argument: Argument[Slo] = Flags.argument("SLO")(parse)
}

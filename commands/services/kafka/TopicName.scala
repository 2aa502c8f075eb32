package bankops.services.kafka

import cats.data.{NonEmptyList, ValidatedNel}
import cats.syntax.all._
import com.monovore.decline.Opts
import org.apache.kafka.common.errors.InvalidTopicException
import org.apache.kafka.common.internals.Topic

/** Topic names given on the command line, checked by Kafka's own rule before any client is made: an illegal name would
  * otherwise reach the broker as a metadata error or a wait until the timeout.
  */
object TopicName {
  def check(flag: String)(name: String): ValidatedNel[String, String] = named(s"--$flag")(name)

  private def named(label: String)(name: String): ValidatedNel[String, String] =
    try { Topic.validate(name); name.validNel }
    catch { case e: InvalidTopicException => s"$label: ${e.getMessage}".invalidNel }

  /** Topics as positional arguments. */
  def arguments(metavar: String): Opts[NonEmptyList[String]] = Opts.arguments[String](metavar).mapValidated(_.traverse(named(metavar)))

  def option(flag: String, help: String): Opts[String] = Opts.option[String](flag, help, metavar = "TOPIC").mapValidated(check(flag))

  /** A topic flag whose help ends with its default, so the two cannot disagree. */
  def option(flag: String, help: String, default: String): Opts[String] = option(flag, s"$help (default $default).").withDefault(default)

  def options(flag: String, help: String, short: String = ""): Opts[NonEmptyList[String]] =
    Opts.options[String](flag, help, short, "TOPIC").mapValidated(_.traverse(check(flag)))
}

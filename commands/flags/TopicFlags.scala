package bankops.flags

import cats.data.NonEmptyList
import com.monovore.decline.Opts

import bankops.services.kafka.TopicName

/** Flags and arguments that name topics, each checked by Kafka's own rule ([[TopicName]]) while parsing. */
object TopicFlags {

  /** Topics as positional arguments. */
  def arguments(metavar: String): Opts[NonEmptyList[String]] = Opts.arguments[String](metavar).mapValidated(_.traverse(TopicName.named(metavar)))

  def option(flag: String, help: String): Opts[String] = Opts.option[String](flag, help, metavar = "TOPIC").mapValidated(TopicName.check(flag))

  /** A topic flag whose help ends with its default, so the two cannot disagree. */
  def option(flag: String, help: String, default: String): Opts[String] = option(flag, s"$help (default $default).").withDefault(default)

  def options(flag: String, help: String, short: String = ""): Opts[NonEmptyList[String]] =
    Opts.options[String](flag, help, short, "TOPIC").mapValidated(_.traverse(TopicName.check(flag)))
}

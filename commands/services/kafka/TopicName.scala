package bankops.services.kafka

import cats.data.ValidatedNel
import cats.syntax.all._
import org.apache.kafka.common.errors.InvalidTopicException
import org.apache.kafka.common.internals.Topic

/** Topic names given on the command line (`flags/TopicFlags`), checked by Kafka's own rule before any client is made: an illegal name would
  * otherwise reach the broker as a metadata error or a wait until the timeout.
  */
object TopicName {
  def check(flag: String)(name: String): ValidatedNel[String, String] = named(s"--$flag")(name)

  /** `name` checked, a refusal naming `label` (a flag, or a positional argument's metavar). */
  def named(label: String)(name: String): ValidatedNel[String, String] =
    try { Topic.validate(name); name.validNel }
    catch { case e: InvalidTopicException => s"$label: ${e.getMessage}".invalidNel }

}

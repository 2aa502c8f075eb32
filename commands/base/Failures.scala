package bankops.base

import java.net.{ConnectException, UnknownHostException}
import javax.net.ssl.SSLException

/** Exit codes for exceptions that did not come from bankops' own checks. */
object Failures {

  /** `text` on one line: line breaks, tabs and other control characters written as escapes (`\n`, `\t`, `\u001b`). */
  def oneLine(text: String): String = text.flatMap {
    case '\n' => "\\n"
    case '\r' => "\\r"
    case '\t' => "\\t"
    case c if Character.isISOControl(c) => f"\\u${c.toInt}%04x"
    case c => c.toString
  }

  /** An error and its causes, outermost first. */
  def chain(error: Throwable): List[Throwable] = Iterator.iterate(error)(_.getCause).takeWhile(_ != null).toList

  /** Whether the error or one of its causes is an `A`. */
  def causedBy[A](error: Throwable)(implicit tag: scala.reflect.ClassTag[A]): Boolean = chain(error).exists(tag.runtimeClass.isInstance)

  def classify(error: Throwable): (String, Int) = {
    val chain = Failures.chain(error)
    def msg(t: Throwable) = Option(t.getMessage).filter(_.nonEmpty).getOrElse(t.getClass.getSimpleName)
    chain.collectFirst {
      case f: Failure => (f.message, f.exitCode)
      case e: ConnectException => (s"connection refused: ${msg(e)}", Failure.ExitUnavailable)
      case e: UnknownHostException => (s"unknown host: ${msg(e)}", Failure.ExitUnavailable)
      case e: SSLException => (s"TLS failure: ${msg(e)}", Failure.ExitUnavailable)
      case e: org.apache.kafka.common.errors.TimeoutException => (s"Kafka did not answer in time: ${msg(e)}", Failure.ExitUnavailable)
      case e: org.apache.kafka.common.errors.AuthenticationException => (s"Kafka refused us: ${msg(e)}", Failure.ExitUnavailable)
      // Where bankops knows what it was doing, the refusal is a Failure.NotAuthorized naming the operation and identity
      // (services/kafka Denied); this is the net under a place that does not say.
      case e: org.apache.kafka.common.errors.AuthorizationException => (s"not authorized: ${msg(e)}", Failure.ExitNotAuthorized)
      case e: ServiceError => (e.getMessage, e.exitCode)
      // Settings the Java client refused (bankops checks its own first; see KafkaCheck) and names it gave.
      case e: org.apache.kafka.common.config.ConfigException => (s"Kafka client setting: ${msg(e)}", Failure.ExitBadInput)
      case e: org.apache.kafka.common.errors.InvalidTopicException => (s"invalid topic: ${msg(e)}", Failure.ExitBadInput)
      case e: java.sql.SQLException if Option(e.getSQLState).exists(s => s.startsWith("08") || s.startsWith("28")) =>
        (s"PostgreSQL: ${msg(e)}", Failure.ExitUnavailable)
    }.getOrElse((s"unexpected error: ${error.getClass.getName}: ${msg(error)} (run with --verbose for details)", 1))
  }
}

package bankops.services.registry

import io.circe.parser.parse

import bankops.base.{Failure, ServiceError}

/** A registry answer that was not a success: the HTTP status plus Confluent's `error_code` and `message`. Its
  * [[RegistryError.Kind]], from the status, decides the class of failure (its exit code) and whether the request is tried again.
  */
final case class RegistryError(status: Int, errorCode: Option[Int], message: String)
    extends ServiceError(s"schema registry answered $status${errorCode.fold("")(c => s" (error_code $c)")}: $message") {
  def kind: RegistryError.Kind = RegistryError.Kind.of(status)
  def failure: Failure.Kind = kind.failure
}

object RegistryError {

  /** What an error answer means. Not found (404) and rejected (409 incompatible, 422 invalid) are about what was asked,
    * exit 1, the difference a check reports. The rest is the service's, exit 3, never read as drift: refused (401, 403),
    * busy (408, 429) and broken (5xx), the two kinds tried again, and any other 4xx (a proxy's 407, a request the
    * registry does not take).
    */
  sealed abstract class Kind(val failure: Failure.Kind, val retried: Boolean)
  object Kind {
    case object Refused extends Kind(Failure.Kind.Unavailable, retried = false)
    case object NotFound extends Kind(Failure.Kind.Difference, retried = false)
    case object Rejected extends Kind(Failure.Kind.Difference, retried = false)
    case object Busy extends Kind(Failure.Kind.Unavailable, retried = true)
    case object Broken extends Kind(Failure.Kind.Unavailable, retried = true)
    case object Other extends Kind(Failure.Kind.Unavailable, retried = false)

    def of(status: Int): Kind = status match {
      case 401 | 403 => Refused
      case 404 => NotFound
      case 409 | 422 => Rejected
      case 408 | 429 => Busy
      case s if s >= 500 => Broken
      case _ => Other
    }
  }

  def from(status: Int, body: String): RegistryError = {
    val json = parse(body).toOption
    val errorCode = json.flatMap(_.hcursor.get[Int]("error_code").toOption)
    // A body that is not Confluent's JSON (a proxy's error page) is shown as one line, shortened.
    val message = json.flatMap(_.hcursor.get[String]("message").toOption).getOrElse(body.replaceAll("\\s+", " ").trim.take(200))
    RegistryError(status, errorCode, message)
  }
}

/** A success whose body is not what the API promises (a registry's bug, a proxy rewriting answers): exit 3 naming what
  * came back, shortened. Never read as a difference, which a CI gate would take for drift, and never tried again.
  */
final case class RegistryGarbled(registry: String, request: String, expected: String, answer: String)
    extends ServiceError(s"schema registry at $registry answered $request with no $expected: ${answer.replaceAll("\\s+", " ").take(200)}") {
  def failure: Failure.Kind = Failure.Kind.Unavailable
}

/** The address answers, but not as a Confluent-compatible registry would (HTML, or a 404 without Confluent's error
  * code): exit 3, never tried again.
  */
final case class NotARegistry(registry: String, what: String) extends ServiceError(s"no Confluent-compatible registry at $registry ($what)") {
  def failure: Failure.Kind = Failure.Kind.Unavailable
}

/** The registry answered with a schema bankops cannot read values by: another type than Avro (a shared registry holds
  * JSON and Protobuf schemas too), or Avro text that does not parse. A fact about that schema, not a fault of the
  * registry's: asking again gives the same answer, so a record framed with its id is never readable (exit 3 for a job
  * that needed it; the handler dead-letters such records).
  */
final case class SchemaNotAvro(registry: String, why: String, answer: String) extends ServiceError(
      s"schema registry at $registry answered a schema that is no Avro schema ($why): ${answer.replaceAll("\\s+", " ").take(200)}") {
  def failure: Failure.Kind = Failure.Kind.Unavailable
}

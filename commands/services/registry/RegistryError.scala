package bankops.services.registry

import io.circe.parser.parse

import bankops.base.{Failure, ServiceError}

/** A registry answer that was not a success: the HTTP status plus Confluent's `error_code` and `message`. */
final case class RegistryError(status: Int, errorCode: Option[Int], message: String)
    extends ServiceError(s"schema registry answered $status${errorCode.fold("")(c => s" (error_code $c)")}: $message") {

  /** Refused (401/403) or broken (5xx) is a service problem; any other answer is about what was asked. */
  def exitCode: Int = if (status == 401 || status == 403 || status >= 500) Failure.ExitUnavailable else Failure.ExitDifference
}

object RegistryError {
  def from(status: Int, body: String): RegistryError = {
    val json = parse(body).toOption
    val errorCode = json.flatMap(_.hcursor.get[Int]("error_code").toOption)
    // A body that is not Confluent's JSON (a proxy's error page) is shown as one line, shortened.
    val message = json.flatMap(_.hcursor.get[String]("message").toOption).getOrElse(body.replaceAll("\\s+", " ").trim.take(200))
    RegistryError(status, errorCode, message)
  }
}

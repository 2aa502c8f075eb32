package bankops.registry

import io.circe.parser.parse

/** A registry answer that was not a success: the HTTP status plus Confluent's `error_code` and `message`. */
final case class RegistryError(status: Int, errorCode: Option[Int], message: String)
    extends Exception(s"schema registry answered $status${errorCode.fold("")(c => s" (error_code $c)")}: $message")
    with scala.util.control.NoStackTrace

object RegistryError {
  def from(status: Int, body: String): RegistryError = {
    val json = parse(body).toOption
    val errorCode = json.flatMap(_.hcursor.get[Int]("error_code").toOption)
    val message = json.flatMap(_.hcursor.get[String]("message").toOption).getOrElse(body.take(200))
    RegistryError(status, errorCode, message)
  }
}

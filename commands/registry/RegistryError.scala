package bankops.registry

/** A registry answer that was not a success: the HTTP status plus Confluent's `error_code` and `message`. */
final case class RegistryError(status: Int, errorCode: Option[Int], message: String)
    extends Exception(s"schema registry answered $status${errorCode.fold("")(c => s" (error_code $c)")}: $message")
    with scala.util.control.NoStackTrace

package bankops.base

import scala.util.control.NoStackTrace

/** An error a service raises that knows its own exit code, so the CLI reports it without knowing the service. */
abstract class ServiceError(message: String) extends Exception(message) with NoStackTrace {
  def exitCode: Int
}

package bankops.base

import scala.util.control.NoStackTrace

/** An error a service raises that knows its own class of failure, so the CLI reports it without knowing the service. */
abstract class ServiceError(message: String) extends Exception(message) with NoStackTrace {
  def failure: Failure.Kind
  final def exitCode: Int = failure.exitCode
}

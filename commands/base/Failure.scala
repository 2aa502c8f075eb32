package bankops.base

import scala.util.control.NoStackTrace

/** The errors bankops reports as one line on stderr, each with its documented exit code. */
sealed abstract class Failure(val message: String, val exitCode: Int, cause: Throwable = null) extends Exception(message, cause) with NoStackTrace

object Failure {
  /** 1: a check found a difference (drift, mismatch, incompatible schema). */
  final case class Difference(override val message: String) extends Failure(message, 1)

  /** 2: bad usage, bad configuration or a bad input file. */
  final case class BadInput(override val message: String) extends Failure(message, 2)

  /** 3: a service could not be reached or refused us. */
  final case class Unavailable(override val message: String, cause: Throwable = null) extends Failure(message, 3, cause)

  /** 4: Kafka's authorizer refused an operation; the message names the operation, the resource and the identity in use. */
  final case class NotAuthorized(override val message: String, cause: Throwable = null) extends Failure(message, 4, cause)

  /** The documented classes without a message: what a service says an error is, where the job writes its own line.
    * The number is the CLI's ([[Exit.of]]); services name the class.
    */
  sealed abstract class Kind(val exitCode: Int)
  object Kind {
    case object Difference extends Kind(ExitDifference)
    case object BadInput extends Kind(ExitBadInput)
    case object Unavailable extends Kind(ExitUnavailable)
    case object NotAuthorized extends Kind(ExitNotAuthorized)
  }

  val ExitDifference = 1
  val ExitBadInput = 2
  val ExitUnavailable = 3
  val ExitNotAuthorized = 4
}

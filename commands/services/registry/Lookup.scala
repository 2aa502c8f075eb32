package bankops.services.registry

/** Whether a schema is registered under a subject (`POST /subjects/{subject}`). */
sealed trait Lookup
object Lookup {
  case object SubjectMissing extends Lookup
  case object NotRegistered extends Lookup
  final case class Found(version: SubjectVersion) extends Lookup
}

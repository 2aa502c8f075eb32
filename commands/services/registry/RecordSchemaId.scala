package bankops.services.registry

import cats.effect.IO
import vulcan.Codec

import bankops.base.Failure
import bankops.services.contracts.SubjectNameStrategy

/** The schema id under which bankops writes records of type A to a topic: looked up in the subject the strategy names,
  * registered only when asked, otherwise exit 2 naming the subject.
  */
object RecordSchemaId {
  def apply[A](registry: RegistryClient, strategy: SubjectNameStrategy, topic: String, register: Boolean)(implicit codec: Codec[A]): IO[Int] = {
    val schema = codec.schema.fold(e => throw new IllegalStateException(e.message), identity)
    val subject = strategy.subject(topic, schema.getFullName)
    registry.schemaId(subject, schema.toString, register).flatMap {
      case Right(id) => IO.pure(id)
      case Left(Lookup.SubjectMissing) =>
        IO.raiseError(Failure.BadInput(s"subject $subject does not exist (register it with `bankops schemas register`, or pass --register)"))
      case Left(_) => IO.raiseError(
          Failure.BadInput(s"subject $subject has no version matching the ${schema.getFullName} bankops writes (pass --register to add it)"))
    }
  }
}

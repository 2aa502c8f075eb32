package bankops.services.avro

/** Why a value could not be decoded; a value, never an exception. */
sealed trait DecodeError { def reason: String }

object DecodeError {
  final case class NotFramed(reason: String) extends DecodeError
  final case class UnknownSchemaId(id: Int, detail: String) extends DecodeError {
    def reason = s"schema id $id is unknown to the registry ($detail)"
  }
  final case class Corrupt(id: Int, detail: String) extends DecodeError {
    def reason = s"payload does not parse under writer schema $id: $detail"
  }
}

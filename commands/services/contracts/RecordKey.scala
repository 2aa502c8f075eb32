package bankops.services.contracts

/** What keys a record on a topic: one of its fields, or the time it was produced. */
sealed trait RecordKey
object RecordKey {
  final case class Field(name: String) extends RecordKey
  case object Time extends RecordKey
}

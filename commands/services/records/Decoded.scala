package bankops.services.records

import org.apache.avro.Schema

/** A record read from Kafka with its value decoded (or the reason it was not). */
final case class Decoded(envelope: Envelope, schema: Option[Schema], datum: Option[Any]) {
  def ok: Boolean = datum.isDefined
}

object Decoded {
  /** When only printing needs the value, the decoder skips building it as JSON; printing writes it directly. */
  def needsPlainValues(filter: RecordFilter, selectsFields: Boolean): Boolean = filter.where.nonEmpty || selectsFields
}

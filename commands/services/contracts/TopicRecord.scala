package bankops.services.contracts

/** A record type a topic carries, with its `.avsc` contract. */
final case class TopicRecord(schema: SchemaFile, key: RecordKey) {
  def fullName: String = schema.fullName
}

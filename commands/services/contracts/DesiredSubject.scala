package bankops.services.contracts

/** A subject the topology wants: the record's `.avsc`, the topics it serves, and the subjects of the types it imports. */
final case class DesiredSubject(subject: String, file: SchemaFile, topics: List[String], dependsOn: List[String]) {
  def record: String = file.fullName
}

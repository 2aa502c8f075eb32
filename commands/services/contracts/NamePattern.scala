package bankops.services.contracts

/** A resource name: exactly `name` (LITERAL), or every name starting with it (PREFIXED). */
final case class NamePattern(name: String, prefixed: Boolean) {
  // A '*' in a prefix is Kafka's literal character; quoted, so `topic:'*'*` is not read as a wildcard.
  def show: String = if (prefixed && name.contains('*')) s"'$name'*" else if (prefixed) s"$name*" else name
}

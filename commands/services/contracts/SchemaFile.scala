package bankops.services.contracts

import org.apache.avro.{Schema, SchemaNormalization}

/** One `.avsc` contract: its file, the parsed schema, the named types it takes from other files, and the
  * file's JSON compacted: the text registered (the registry normalizes; bankops compares canonical forms).
  */
final case class SchemaFile(path: os.Path, schema: Schema, imports: List[String], text: String) {
  def fullName: String = schema.getFullName

  /** Avro's parsing canonical form: what "the same schema" means everywhere in bankops. */
  def canonical: String = SchemaNormalization.toParsingForm(schema)
}

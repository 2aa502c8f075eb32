package bankops.schema

import org.apache.avro.{Schema, SchemaNormalization}

/** One `.avsc` contract: its file, the parsed schema, and the named types it takes from other files. */
final case class SchemaFile(path: os.Path, schema: Schema, imports: List[String]) {
  def fullName: String = schema.getFullName

  /** Avro's parsing canonical form: what "the same schema" means everywhere in bankops. */
  def canonical: String = SchemaNormalization.toParsingForm(schema)
}

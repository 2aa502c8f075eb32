package bankops.services.registry

/** A schema as the registry holds it: its text and the references it needs to parse. */
final case class RegisteredSchema(schema: String, references: List[SchemaReference])

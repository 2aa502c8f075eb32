package bankops.services.registry

/** A schema as the registry holds it: its text, the references it needs to parse, and its type (`AVRO` when the
  * registry says none, as Confluent's API does for Avro; a shared registry also holds `JSON` and `PROTOBUF` schemas).
  */
final case class RegisteredSchema(schema: String, references: List[SchemaReference], schemaType: String = RegisteredSchema.Avro)

object RegisteredSchema {
  val Avro = "AVRO"
}

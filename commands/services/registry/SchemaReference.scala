package bankops.services.registry

import io.circe.{Decoder, Encoder, Json}

/** A named type a schema takes from another subject's version (Confluent's `references`). */
final case class SchemaReference(name: String, subject: String, version: Int)

object SchemaReference {
  implicit val decoder: Decoder[SchemaReference] = Decoder.forProduct3("name", "subject", "version")(SchemaReference.apply)
  implicit val encoder: Encoder[SchemaReference] = Encoder.instance(r =>
    Json.obj("name" -> Json.fromString(r.name), "subject" -> Json.fromString(r.subject), "version" -> Json.fromInt(r.version)))
}

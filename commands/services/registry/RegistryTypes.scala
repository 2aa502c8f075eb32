package bankops.services.registry

import io.circe.{Decoder, Encoder, Json}

/** A named type a schema takes from another subject's version (Confluent's `references`). */
final case class SchemaReference(name: String, subject: String, version: Int)

object SchemaReference {
  implicit val decoder: Decoder[SchemaReference] = Decoder.forProduct3("name", "subject", "version")(SchemaReference.apply)
  implicit val encoder: Encoder[SchemaReference] = Encoder.instance(r =>
    Json.obj("name" -> Json.fromString(r.name), "subject" -> Json.fromString(r.subject), "version" -> Json.fromInt(r.version)))
}

/** A schema as the registry holds it: its text and the references it needs to parse. */
final case class RegisteredSchema(schema: String, references: List[SchemaReference])

/** One version of a subject; `ts` (epoch milliseconds) when the registry adds when it was registered. */
final case class SubjectVersion(subject: String, version: Int, id: Int, schema: String, references: List[SchemaReference],
                                ts: Option[Long] = None)

object SubjectVersion {
  implicit val decoder: Decoder[SubjectVersion] = Decoder.instance { c =>
    for {
      s <- c.get[String]("subject")
      v <- c.get[Int]("version")
      id <- c.get[Int]("id")
      schema <- c.get[String]("schema")
      refs <- c.getOrElse[List[SchemaReference]]("references")(Nil)
    } yield SubjectVersion(s, v, id, schema, refs, c.get[Long]("ts").toOption)
  }
}

/** Whether a schema is registered under a subject (`POST /subjects/{subject}`). */
sealed trait Lookup
object Lookup {
  case object SubjectMissing extends Lookup
  case object NotRegistered extends Lookup
  final case class Found(version: SubjectVersion) extends Lookup
}

/** The registry's verdict on a candidate against a subject's latest version; `messages` when it gives reasons. */
final case class Compatibility(isCompatible: Boolean, messages: List[String])

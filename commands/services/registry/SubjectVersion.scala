package bankops.services.registry

import io.circe.Decoder

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

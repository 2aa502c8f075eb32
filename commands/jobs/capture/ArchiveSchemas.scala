package bankops.jobs.capture

import org.apache.avro.Schema
import org.apache.avro.generic.GenericDatumReader

import scala.util.control.NonFatal

/** The archive's schemas made readable: a reader per captured schema id, its referenced schemas parsed first. */
private[capture] object ArchiveSchemas {
  def readers(schemas: List[CapturedSchema]): Either[String, Map[Int, (Schema, GenericDatumReader[Any])]] =
    schemas.distinctBy(_.id).foldLeft[Either[String, Map[Int, (Schema, GenericDatumReader[Any])]]](Right(Map.empty)) { (acc, s) =>
      acc.flatMap { m =>
        try {
          val parser = new Schema.Parser()
          // Referenced schemas first, so the names they define are known.
          schemas.filter(r => s.references.exists(x => x.subject == r.subject && x.version == r.version)).distinctBy(_.subject)
            .foreach(r => parser.parse(r.schema))
          val schema = parser.parse(s.schema)
          Right(m.updated(s.id, (schema, new GenericDatumReader[Any](schema))))
        } catch {
          case NonFatal(e) =>
            Left(s"${ArchiveParts.Schemas}: schema id ${s.id} (${s.subject}) does not parse: ${Option(e.getMessage).getOrElse(e.toString)}")
        }
      }
    }
}

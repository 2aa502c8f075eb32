package bankops.jobs.replay

import cats.effect.IO
import cats.syntax.all._
import fs2.Chunk
import org.apache.avro.Schema

import scala.collection.concurrent.TrieMap

import bankops.services.avro.{AvroJsonRead, WireFormat}
import bankops.services.contracts.{SchemaFile, SubjectNameStrategy}
import bankops.services.records.RecordLine
import bankops.services.registry.{RegistryClient, SchemaResolver}

/** Turns file lines into values for the target topic: `--exact` sends the raw bytes; otherwise the line's
  * `value` is encoded with its record's schema on the target (the subject's latest version, or the `.avsc`
  * of `--schema-dir`, which must be registered there).
  */
private[replay] final class FileEncoder(target: RegistryClient, strategy: SubjectNameStrategy, topic: String,
                                        schemaDir: Option[Map[String, SchemaFile]],
                                        known: Map[String, SchemaFile], exact: Boolean) {
  private val resolver = new SchemaResolver(target)
  private val schemas = TrieMap.empty[String, Either[String, (Int, Schema)]]

  private val knownNames = (schemaDir.getOrElse(Map.empty) ++ known).keys.toList

  /** Full name of a record given by simple or full name. */
  private def fullName(name: String): String =
    if (name.contains('.')) name else knownNames.find(_.endsWith("." + name)).getOrElse(name)

  // Deferred, so that the cache is looked at when the effect runs, not when it is made.
  private def schemaFor(record: String): IO[Either[String, (Int, Schema)]] = IO.defer {
    schemas.get(record).fold {
      val subject = strategy.subject(topic, record)
      val found: IO[Either[String, (Int, Schema)]] = schemaDir match {
        case Some(files) => files.get(record) match {
            case None => IO.pure(Left(s"no .avsc for $record in --schema-dir"))
            case Some(f) => target.schemaId(subject, f.schema.toString, register = false).map {
                case Right(id) => Right((id, f.schema))
                case Left(_) => Left(s"$record's .avsc is not registered under $subject (bankops schemas register)")
              }
          }
        case None => resolver.subjectVersion(subject).map {
            case None => Left(s"subject $subject does not exist on the target registry")
            case Some((v, s)) => Right((v.id, s))
          }
      }
      found.flatTap(r => IO(schemas.put(record, r)))
    }(r => IO.pure(r))
  }

  /** The schema each line's record needs, for the lines that are encoded with one. */
  private def recordOf(l: RecordLine): Option[String] =
    if (exact) None else (l.record, l.value) match { case (Some(r), Some(_)) => Some(fullName(r)); case _ => None }

  /** The value bytes for each line, or the reason it cannot be sent. The schemas of records not met before are asked
    * for first, once each; then every line is encoded with no effect of its own (an effect per line was over half of
    * `replay --from-file`'s CPU in a profile).
    */
  def encodeAll(lines: Chunk[RecordLine]): IO[Chunk[Either[String, Array[Byte]]]] = {
    val records = lines.map(recordOf)
    val missing = records.iterator.flatten.distinct.filterNot(schemas.contains).toList
    missing.traverse_(schemaFor).map(_ => lines.zipWith(records)((l, r) => encodeWith(l, r.map(schemas(_)))))
  }

  /** The value bytes for a line, or the reason it cannot be sent. */
  def encode(l: RecordLine): IO[Either[String, Array[Byte]]] = encodeAll(Chunk.singleton(l)).map(_(0))

  /** `schema`: the record's, as [[schemaFor]] found it, for a line encoded with one. */
  private def encodeWith(l: RecordLine, schema: Option[Either[String, (Int, Schema)]]): Either[String, Array[Byte]] =
    if (exact) l.raw.toRight("--exact needs the raw value bytes (raw), which this line lacks").flatMap(bytes =>
      // Sent as they are: a value consumers cannot take (no Confluent frame) is refused here, before anything is sent,
      // unless the line itself says the original was undecodable (its `error`, as --to-file writes it): restoring a
      // topic exactly restores that record too.
      if (l.error.isDefined) Right(bytes)
      else WireFormat.schemaIdOf(bytes).left.map(e => s"raw: not a Confluent-framed Avro value (${e.reason})").map(_ => bytes))
    else (schema, l.value) match {
      case (Some(found), Some(v)) => found.flatMap { case (id, s) => AvroJsonRead.framed(v, s, id).left.map(e => s"value.$e") }
      case _ => (l.record, l.value) match {
          case (None, _) if l.raw.isDefined => Right(l.raw.get)
          case (None, _) => Left("no record (the Avro record name of value)")
          case (_, _) => l.raw.toRight("no value")
        }
    }
}

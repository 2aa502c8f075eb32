package bankops.jobs.capture

import cats.effect.IO
import cats.syntax.all._
import io.circe.syntax._
import org.apache.avro.Schema
import org.apache.avro.generic.GenericDatumReader

import java.time.Instant

import bankops.base.{Failure, Rendered, Shell, Table}
import bankops.jobs.capture.ArchiveParts._
import bankops.services.avro.DecodeError
import bankops.services.records.{Envelope, RecordDecoder, RecordLine}

/** `capture show`: the manifest for people or machines, and the records decoded with the archive's own schemas. */
private[capture] object ArchiveShow {

  def manifest(m: ArchiveManifest): Rendered = {
    def time(t: Option[Long]) = t.fold("")(Instant.ofEpochMilli(_).toString)
    val head = List(
      s"archive     ${m.format} version ${m.version}, written by bankops ${m.bankops} at ${m.created}",
      s"asked       topics ${m.asked.topics.mkString(", ")}; from ${m.asked.from} to ${m.asked.to}" +
        (if (m.asked.filters.isEmpty) "" else s"; ${m.asked.filters.mkString(" ")}"),
      s"groups      ${if (m.asked.groups.isEmpty) "none" else m.asked.groups.mkString(", ")}",
      s"records     ${m.records}"
    ).++(Option.when(m.topics.exists(_.uncommitted > 0))(
        s"uncommitted ${m.topics.map(_.uncommitted).sum} past the last stable offset (read uncommitted; they may have been aborted): " +
          m.topics.flatMap(t => t.partitions.flatMap(p => p.uncommitted.map(u => s"${t.topic}-${p.partition} from offset ${u.from}")))
            .mkString(", "))).mkString("\n")
    val spans = Table.render(List("TOPIC", "PARTITION", "RECORDS", "FIRST OFFSET", "LAST OFFSET", "FIRST TIME", "LAST TIME"),
      m.topics.flatMap(t =>
        t.partitions.map(p =>
          List(t.topic, p.partition.toString, p.records.toString, p.firstOffset.fold("")(_.toString), p.lastOffset.fold("")(_.toString),
            time(p.firstTime), time(p.lastTime)))))
    val files = Table.render(List("FILE", "BYTES", "SHA-256"), m.files.map(f => List(f.name, f.bytes.toString, f.sha256)))
    Rendered.result(List(m.asJson), s"$head\n\n$spans\n\n$files")
  }

  /** Each record line of the archive, its value decoded from its raw bytes with the archive's schema of its id. */
  def records(archive: ArchiveReader, topics: List[String], shell: Shell): IO[Unit] =
    IO.fromEither(archive.json[List[CapturedSchema]](ArchiveParts.Schemas).flatMap(ArchiveSchemas.readers).left.map(Failure.BadInput(_)))
      .flatMap { readers =>
        val wanted = archive.manifest.topics.map(_.topic).filter(t => topics.isEmpty || topics.contains(t))
        wanted.traverse_ { topic =>
          val file = ArchiveParts.records(topic)
          // Where records were read past the last stable offset: those lines say so.
          val stable =
            archive.manifest.topics.filter(_.topic == topic).flatMap(_.partitions).flatMap(p => p.uncommitted.map(p.partition -> _.from)).toMap
          archive.stream(file).map {
            case Left(e) => throw Failure.BadInput(e)
            case Right((text, n)) => RecordLine.parse(text, n).fold(e => throw Failure.BadInput(s"$file:$n: $e"), identity)
          }.map(l => decoded(l, readers, l.partition.flatMap(stable.get).exists(from => l.offset.exists(_ >= from))))
            .evalMap(shell.println).compile.drain
        }
      }

  /** A line of the archive as inspect prints the record: headers, a key that is not text as base64, the value decoded
    * with the archive's schema of its id (or the reason it is not, and its bytes).
    */
  private def decoded(l: RecordLine, readers: Map[Int, (Schema, GenericDatumReader[Any])], uncommitted: Boolean): String = {
    val base = Envelope(l.topic.getOrElse(""), l.partition.getOrElse(0), l.offset.getOrElse(0L), l.timestamp.map(Instant.ofEpochMilli),
      l.timestampType.getOrElse("CreateTime"), l.key, l.headers.map { case (k, v) => k -> Option(v) }, None, None, None, None, None)
    val d = RecordDecoder.decoded(base, l.raw.orNull, plainValues = false)(id =>
      readers.get(id).toRight(DecodeError.UnknownSchemaId(id, "not in the archive's schemas.json")))
    val sb = new java.lang.StringBuilder(256)
    RecordLine.writeDecoded(d, sb)
    // A record read past the last stable offset: `"uncommitted":true` last, the line otherwise as inspect prints it.
    if (uncommitted && sb.length > 0 && sb.charAt(sb.length - 1) == '}') { sb.setLength(sb.length - 1); sb.append(",\"uncommitted\":true}") }
    sb.toString
  }
}

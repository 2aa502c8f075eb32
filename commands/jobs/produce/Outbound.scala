package bankops.jobs.produce

import io.circe.Json
import org.apache.kafka.clients.producer.ProducerRecord
import org.apache.kafka.common.header.Header
import org.apache.kafka.common.header.internals.RecordHeader

import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64
import scala.jdk.CollectionConverters._

/** The schema a value is encoded with: its subject, the registry's id and the record's full name. */
private[produce] final case class WriterSchema(subject: String, id: Int, record: String)

/** One record ready to send, checked and encoded: what `--dry-run` shows and what is sent. `source` says where its value
  * came from (`--value`, a file, `stdin:LINE`); `value` is None for a tombstone.
  */
private[produce] final case class Outbound(source: String, topic: String, partition: Option[Int], key: Option[String],
                                           headers: List[(String, String)],
                                           schema: Option[WriterSchema], value: Option[Array[Byte]]) {

  def toRecord: ProducerRecord[Array[Byte], Array[Byte]] =
    new ProducerRecord[Array[Byte], Array[Byte]](topic, partition.map(Integer.valueOf).orNull, null, key.map(_.getBytes(UTF_8)).orNull,
      value.orNull, headers.map { case (k, v) => new RecordHeader(k, v.getBytes(UTF_8)): Header }.asJava)

  private def str(o: Option[String]) = o.fold(Json.Null)(Json.fromString)

  /** What is known before sending, as `--dry-run` prints it: the value's bytes as hex and base64. */
  def json: Json = Json.obj(
    "source" -> Json.fromString(source),
    "topic" -> Json.fromString(topic),
    "partition" -> partition.fold(Json.Null)(Json.fromInt),
    "key" -> str(key),
    "headers" -> Json.arr(headers.map { case (k, v) => Json.obj("key" -> Json.fromString(k), "value" -> Json.fromString(v)) }: _*),
    "subject" -> str(schema.map(_.subject)),
    "schemaId" -> schema.fold(Json.Null)(s => Json.fromInt(s.id)),
    "record" -> str(schema.map(_.record)),
    "valueHex" -> str(value.map(Outbound.hex)),
    "valueBase64" -> str(value.map(Base64.getEncoder.encodeToString))
  )

  /** The same for people: one `name  value` line each. */
  def text: String = {
    val rows = List("source" -> source, "topic" -> topic, "partition" -> partition.fold("by key")(_.toString), "key" -> key.getOrElse("(none)"),
      "headers" -> (if (headers.isEmpty) "(none)" else headers.map { case (k, v) => s"$k=$v" }.mkString(", "))) ++
      schema.toList.flatMap(s => List("subject" -> s.subject, "schema id" -> s.id.toString, "record" -> s.record)) ++
      value.fold(List("value" -> "null (tombstone)"))(v =>
        List("value" -> s"${v.length} bytes", "value hex" -> Outbound.hex(v), "value base64" -> Base64.getEncoder.encodeToString(v)))
    rows.map { case (k, v) => f"$k%-13s $v" }.mkString("\n")
  }
}

private[produce] object Outbound {
  // One formatter for the whole value: a format call per byte took a third of a dry run of 4 KiB values.
  private val hexFormat = java.util.HexFormat.of()

  def hex(bytes: Array[Byte]): String = hexFormat.formatHex(bytes)
}

/** A record the broker acknowledged (acks=all): where it landed. */
private[produce] final case class Acked(record: Outbound, partition: Int, offset: Long) {
  def json: Json = Json.obj(
    "source" -> Json.fromString(record.source),
    "topic" -> Json.fromString(record.topic),
    "partition" -> Json.fromInt(partition),
    "offset" -> Json.fromLong(offset),
    "key" -> record.key.fold(Json.Null)(Json.fromString),
    "record" -> record.schema.fold(Json.Null)(s => Json.fromString(s.record)),
    "schemaId" -> record.schema.fold(Json.Null)(s => Json.fromInt(s.id))
  )

  /** A row under [[Acked.header]], in fixed columns: rows are printed as they are acknowledged. */
  def row: String = {
    val (key, kind) = (record.key.getOrElse("-"), record.schema.fold("tombstone")(_.record))
    f"${record.source}%-10s ${record.topic}%-20s $partition%9d $offset%10d  $key%-36s  $kind"
  }
}

private[produce] object Acked {
  val header: String = f"${"source"}%-10s ${"topic"}%-20s ${"partition"}%9s ${"offset"}%10s  ${"key"}%-36s  record"
}

/** What a run did: how many records were acknowledged, or with `--dry-run` checked and not sent (each was shown as it
  * was), and whether Ctrl-C ended it. Only counts are kept: a run takes standard input of any length.
  */
final case class ProduceReport(acked: Long, checked: Long, interrupted: Boolean)

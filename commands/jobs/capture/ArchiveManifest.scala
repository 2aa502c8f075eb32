package bankops.jobs.capture

import io.circe.Codec
import io.circe.generic.semiauto._

/** What a capture asked for: kept in the manifest so an archive says what it is an answer to. */
private[capture] final case class CaptureAsked(topics: List[String], from: String, to: String, filters: List[String], groups: List[String],
                                               accounts: List[String], redacted: List[String])

/** One partition's share of the records: how many, and the first and last offsets and times (epoch ms). */
private[capture] final case class PartitionSpan(partition: Int, records: Long, firstOffset: Option[Long], lastOffset: Option[Long],
                                                firstTime: Option[Long],
                                                lastTime: Option[Long])

private[capture] final case class TopicSpan(topic: String, partitions: List[PartitionSpan]) {
  def records: Long = partitions.map(_.records).sum
}

/** A file of the archive, its size and SHA-256: a restore refuses an archive whose files do not match. */
private[capture] final case class ArchiveFile(name: String, bytes: Long, sha256: String)

/** The archive's table of contents (`manifest.json`), written last. Never holds a connection setting. */
private[capture] final case class ArchiveManifest(format: String, version: Int, bankops: String, created: String, asked: CaptureAsked,
                                                  topics: List[TopicSpan],
                                                  files: List[ArchiveFile]) {
  def records: Long = topics.map(_.records).sum
}

private[capture] object ArchiveManifest {
  val Format = "bankops-capture"

  /** The version this bankops writes, and the newest it reads. */
  val Version = 1

  implicit val askedCodec: Codec.AsObject[CaptureAsked] = deriveCodec
  implicit val partitionCodec: Codec.AsObject[PartitionSpan] = deriveCodec
  implicit val topicCodec: Codec.AsObject[TopicSpan] = deriveCodec
  implicit val fileCodec: Codec.AsObject[ArchiveFile] = deriveCodec
  implicit val codec: Codec.AsObject[ArchiveManifest] = deriveCodec
}

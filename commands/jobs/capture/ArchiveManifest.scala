package bankops.jobs.capture

import io.circe.Codec
import io.circe.generic.semiauto._

/** What a capture asked for: kept in the manifest so an archive says what it is an answer to. */
private[capture] final case class CaptureAsked(topics: List[String], from: String, to: String, filters: List[String], groups: List[String],
                                               accounts: List[String], redacted: List[String])

/** One partition's share of the records: how many, and the first and last offsets and times (epoch ms); `uncommitted`
  * (version 2): the records read past the last stable offset (`--open-transactions read`).
  */
private[capture] final case class PartitionSpan(partition: Int, records: Long, firstOffset: Option[Long], lastOffset: Option[Long],
                                                firstTime: Option[Long],
                                                lastTime: Option[Long], uncommitted: Option[Uncommitted] = None)

private[capture] object PartitionSpan {

  /** Pure: the span `prev` with the record at `offset` (taken at `time`) added, counted as uncommitted when at or past
    * the partition's last stable offset `stable` (a read past it).
    */
  def next(prev: Option[PartitionSpan], partition: Int, offset: Long, time: Option[Long], stable: Option[Long]): PartitionSpan = {
    val s = prev.fold(PartitionSpan(partition, 1, Some(offset), Some(offset), time, time))(s =>
      s.copy(records = s.records + 1, lastOffset = Some(offset), firstTime = s.firstTime.orElse(time), lastTime = time.orElse(s.lastTime)))
    stable.filter(offset >= _).fold(s)(from =>
      s.copy(uncommitted = Some(s.uncommitted.fold(Uncommitted(from, 1))(u => u.copy(records = u.records + 1)))))
  }
}

/** Records at and after the partition's last stable offset `from` at capture: of transactions then open (or ended after
  * it), read uncommitted; they may have been aborted since.
  */
private[capture] final case class Uncommitted(from: Long, records: Long)

private[capture] final case class TopicSpan(topic: String, partitions: List[PartitionSpan]) {
  def records: Long = partitions.map(_.records).sum
  def uncommitted: Long = partitions.flatMap(_.uncommitted).map(_.records).sum
}

/** A file of the archive, its size and SHA-256: a restore refuses an archive whose files do not match. */
private[capture] final case class ArchiveFile(name: String, bytes: Long, sha256: String)

/** The archive's table of contents (`manifest.json`), written last. Never holds a connection setting. */
private[capture] final case class ArchiveManifest(format: String, version: Int, bankops: String, created: String, asked: CaptureAsked,
                                                  topics: List[TopicSpan],
                                                  files: List[ArchiveFile]) {
  def records: Long = topics.map(_.records).sum

  /** Pure: the first partition whose record count here is not what its records file holds (`counts`, per topic and
    * partition, from reading every line): a manifest changed after capture, which a restore refuses.
    */
  def countsDiffer(counts: Map[String, Map[Int, Long]]): Option[String] =
    topics.iterator.flatMap { t =>
      val held = counts.getOrElse(t.topic, Map.empty)
      (t.partitions.map(_.partition) ++ held.keys).distinct.sorted.iterator.flatMap { p =>
        val said = t.partitions.find(_.partition == p).fold(0L)(_.records)
        Option.when(said != held.getOrElse(p, 0L))(
          s"${ArchiveParts.ManifestFile}: ${t.topic} partition $p: the manifest counts $said record(s), ${ArchiveParts.records(t.topic)} " +
            s"holds ${held.getOrElse(p, 0L)}: the archive was changed after capture; nothing created")
      }
    }.nextOption()
}

private[capture] object ArchiveManifest {
  val Format = "bankops-capture"

  /** The newest version this bankops reads, and the one it writes: 3 stores each file of JSON lines as a zstd frame
    * ([[ArchiveParts.compressed]]). It reads 1 and 2, whose lines the ZIP deflates; 2 added the marks of records read
    * uncommitted (a reader of 1 would restore those as committed, unmarked), which 3 keeps.
    */
  val Version = 3

  implicit val askedCodec: Codec.AsObject[CaptureAsked] = deriveCodec
  implicit val uncommittedCodec: Codec.AsObject[Uncommitted] = deriveCodec
  // Version 1's fields only, where nothing was read uncommitted: such a manifest is byte for byte what it was.
  implicit val partitionCodec: Codec.AsObject[PartitionSpan] =
    Codec.AsObject.from(deriveDecoder[PartitionSpan],
      deriveEncoder[PartitionSpan].mapJsonObject(o =>
        if (o("uncommitted").exists(_.isNull)) o.remove("uncommitted") else o))
  implicit val topicCodec: Codec.AsObject[TopicSpan] = deriveCodec
  implicit val fileCodec: Codec.AsObject[ArchiveFile] = deriveCodec
  implicit val codec: Codec.AsObject[ArchiveManifest] = deriveCodec
}

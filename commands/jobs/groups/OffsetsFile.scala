package bankops.jobs.groups

import io.circe.{Decoder, Json}
import io.circe.syntax._
import org.apache.kafka.common.TopicPartition

import java.time.Instant

import bankops.base.{Failure, JsonInput}

/** Committed offsets saved by `groups reset --save-to` and read back by `--to file:PATH`:
  * `{"saved": "...", "offsets": [{"group": "g", "topic": "t", "partition": 0, "offset": 42}, ...]}`.
  */
private[groups] object OffsetsFile {
  final case class Entry(group: String, topic: String, partition: Int, offset: Long)

  private implicit val entryDecoder: Decoder[Entry] = Decoder.forProduct4("group", "topic", "partition", "offset")(Entry.apply)
  private final case class Contents(offsets: List[Entry])
  private implicit val contentsDecoder: Decoder[Contents] = Decoder.forProduct1("offsets")(Contents.apply)

  def render(entries: List[(String, TopicPartition, Long)], saved: Instant): String =
    Json.obj("saved" -> saved.toString.asJson,
      "offsets" -> entries.sortBy { case (g, tp, _) => (g, tp.topic, tp.partition) }.map { case (g, tp, o) =>
        Json.obj("group" -> g.asJson, "topic" -> tp.topic.asJson, "partition" -> tp.partition.asJson, "offset" -> o.asJson)
      }.asJson).spaces2 + "\n"

  /** The entries of a file; exit 2 naming the file when it is missing or not in this format. */
  def parse(text: String, file: os.Path): Either[Failure, List[Entry]] =
    JsonInput.parse(text).left.map(e => Failure.BadInput(s"$file: $e"))
      .flatMap(_.as[Contents].left.map(e => Failure.BadInput(s"$file is not an offsets file as --save-to writes it: ${e.getMessage}")))
      .flatMap { c =>
        c.offsets.find(e => e.partition < 0 || e.offset < 0)
          .map(e => Failure.BadInput(s"$file: ${e.group} ${e.topic}-${e.partition} has a negative partition or offset"))
          .toLeft(c.offsets)
      }

  /** One group's offsets on some topics. */
  def offsets(entries: List[Entry], group: String, topics: Set[String]): Map[TopicPartition, Long] =
    entries.collect { case e if e.group == group && topics(e.topic) => new TopicPartition(e.topic, e.partition) -> e.offset }.toMap
}

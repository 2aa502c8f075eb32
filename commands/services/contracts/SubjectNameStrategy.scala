package bankops.services.contracts

/** How a value's subject is named, as Confluent's serializers name it. */
sealed abstract class SubjectNameStrategy(val name: String) {
  def subject(topic: String, recordFullName: String): String
}

object SubjectNameStrategy {
  /** `<topic>-<record full name>`: several record types per topic, each evolving on its own. */
  case object TopicRecord extends SubjectNameStrategy("TopicRecordNameStrategy") {
    def subject(topic: String, record: String): String = s"$topic-$record"
  }
  /** `<topic>-value`: one record type per topic. */
  case object Topic extends SubjectNameStrategy("TopicNameStrategy") {
    def subject(topic: String, record: String): String = s"$topic-value"
  }
  /** `<record full name>`: one evolution of a record across all topics. */
  case object Record extends SubjectNameStrategy("RecordNameStrategy") {
    def subject(topic: String, record: String): String = record
  }

  val all: List[SubjectNameStrategy] = List(TopicRecord, Topic, Record)

  /** Accepts the full class-like names and short ones (`topic-record`, `topic`, `record`). */
  def parse(s: String): Either[String, SubjectNameStrategy] = {
    val short = Map("topic-record" -> TopicRecord, "topicrecord" -> TopicRecord, "topic" -> Topic, "record" -> Record)
    all.find(st => st.name.equalsIgnoreCase(s) || s.endsWith("." + st.name)).orElse(short.get(s.toLowerCase))
      .toRight(s"'$s' is not a subject name strategy (use ${all.map(_.name).mkString(", ")})")
  }
}

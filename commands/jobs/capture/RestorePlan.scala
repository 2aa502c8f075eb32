package bankops.jobs.capture

/** Pure: where an archive's topics, subjects and groups go, and where a group's offset lands among the restored records. */
private[capture] final case class RestorePlan(prefix: String, renames: Map[String, String], groupPrefix: String) {
  def topic(captured: String): String = renames.getOrElse(captured, prefix + captured)

  def group(captured: String): String = groupPrefix + captured

  /** A subject named after its topic (`commands-nl.openweb...`, `commands-value`) follows the topic's new name; a
    * subject of its own (RecordNameStrategy, a reference) takes the prefix: a restore writes no subject it did not name.
    */
  def subject(captured: String, topics: List[String]): String =
    ofTopic(captured, topics).fold(prefix + captured)(t => topic(t) + captured.drop(t.length))

  private def ofTopic(subject: String, topics: List[String]): Option[String] = topics.sortBy(-_.length).find(t => subject.startsWith(s"$t-"))

  /** The target subject of every captured one, or what makes the archive's schemas unsafe to register: a schema that
    * belongs to no restored topic and that no other references (an archive capture did not write), or a subject that
    * would keep a live name (no prefix to put it under).
    */
  def subjects(schemas: List[CapturedSchema], topics: List[String]): Either[String, Map[String, String]] = {
    val referenced = schemas.flatMap(_.references.map(_.subject)).toSet
    schemas.foldLeft[Either[String, Map[String, String]]](Right(Map.empty)) { (acc, s) =>
      acc.flatMap { m =>
        val own = ofTopic(s.subject, topics)
        if (s.topic.exists(t => !topics.contains(t)) || (s.topic.isEmpty && !referenced(s.subject)))
          Left(s"${ArchiveParts.Schemas}: subject ${s.subject} (schema id ${s.id}) belongs to no topic of the archive and no schema " +
            "references it: a restore registers only the schemas its records use (was the archive changed?)")
        else if (own.isEmpty && prefix.isEmpty)
          Left(s"${ArchiveParts.Schemas}: subject ${s.subject} is not named after a topic, so without --topic-prefix it would be " +
            "registered under its live name: give a --topic-prefix")
        else Right(m.updated(s.subject, subject(s.subject, topics)))
      }
    }
  }
}

private[capture] object RestorePlan {

  /** Kafka's default largest record batch (`message.max.bytes`, `max.request.size`): a copy of larger records needs more. */
  val DefaultMaxBytes = 1048588

  /** What a record batch of one record adds to its key, value and headers, generously. */
  val BatchOverhead = 1024

  /** The captured configs as a restored topic can hold them: kept for good (its records are old: a retention would
    * delete them at once), min.insync.replicas no higher than the replicas it has here, the records' own timestamps
    * kept as they were taken (CreateTime, whatever their age), not compacted unless asked (compaction would drop
    * records the archive holds), and room for the largest captured record.
    */
  def configs(captured: Map[String, String], replicas: Int, keepCompaction: Boolean, largest: Int): Map[String, String] =
    captured.filterNot { case (k, _) => k.startsWith("message.timestamp.") } ++
      Map("retention.ms" -> "-1", "retention.bytes" -> "-1", "message.timestamp.type" -> "CreateTime") ++
      captured.get("min.insync.replicas").flatMap(_.toIntOption).map(n => "min.insync.replicas" -> (n min replicas).toString) ++
      Option.when(compacted(captured) && !keepCompaction)("cleanup.policy" -> "delete") ++
      Option.when(largest + BatchOverhead > captured.get("max.message.bytes").flatMap(_.toIntOption).getOrElse(DefaultMaxBytes))(
        "max.message.bytes" -> (largest + BatchOverhead).toString)

  def compacted(configs: Map[String, String]): Boolean = configs.get("cleanup.policy").exists(_.split(',').map(_.trim).contains("compact"))

  /** What a restored topic holds differently from its captured one, and why: one line each. `existing`: the configs of
    * a target that was there before (None: restore created it).
    */
  def differences(target: String, configs: Map[String, String], existing: Option[Map[String, String]], keepCompaction: Boolean,
                  scan: TopicScan): List[String] = {
    val stamped = existing.exists(_.get("message.timestamp.type").contains("LogAppendTime"))
    Option.when(scan.logAppendTimes > 0 && !stamped)(
      s"$target: ${scan.logAppendTimes} record(s) had the broker's append time (LogAppendTime): restored as CreateTime with the captured times") ++:
      Option.when(stamped)(
        s"$target: the existing topic stamps the broker's append time (message.timestamp.type=LogAppendTime): the ${scan.records} restored " +
          "record(s) carry the time of the restore, not the captured times") ++:
      Option.when(compacted(configs) && !existing.fold(keepCompaction)(compacted))(
        s"$target: the captured topic is compacted; the copy is not (cleanup.policy=delete), so it keeps every restored record" +
          (if (existing.isEmpty) " (--keep-compaction to compact it)" else "")) ++:
      Option.when(existing.exists(compacted))(
        s"$target: the existing topic is compacted (cleanup.policy=compact): it may drop restored records whose key comes again").toList
  }
}

/** The target's schema id of each captured one: per topic whose records carry it (a subject per topic), and any. */
private[capture] final case class RestoredIds(perTopic: Map[String, Map[Int, Int]], any: Map[Int, Int]) {
  def add(s: CapturedSchema, target: Int): RestoredIds =
    RestoredIds(s.topic.fold(perTopic)(t => perTopic.updated(t, perTopic.getOrElse(t, Map.empty).updated(s.id, target))), any.updated(s.id, target))

  def of(topic: String): Map[Int, Int] = any ++ perTopic.getOrElse(topic, Map.empty)

  def size: Int = any.size
  def pairs: List[(Int, Int)] = any.toList.sorted
}

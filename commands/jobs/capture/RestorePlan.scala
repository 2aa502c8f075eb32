package bankops.jobs.capture

/** Pure: where an archive's topics, subjects and groups go, and where a group's offset lands among the restored records. */
private[capture] final case class RestorePlan(prefix: String, renames: Map[String, String], groupPrefix: String) {
  def topic(captured: String): String = renames.getOrElse(captured, prefix + captured)

  def group(captured: String): String = groupPrefix + captured

  /** A subject named after its topic (`commands-nl.openweb...`, `commands-value`) follows the topic's new name; a
    * subject of its own (RecordNameStrategy, a reference) keeps its name.
    */
  def subject(captured: String, topics: List[String]): String =
    topics.sortBy(-_.length).find(t => captured.startsWith(s"$t-")).fold(captured)(t => topic(t) + captured.drop(t.length))
}

private[capture] object RestorePlan {

  /** The captured configs as a restored topic can hold them: kept for good (its records are old: a retention would
    * delete them at once), min.insync.replicas no higher than the replicas it has here, the records' own timestamps
    * accepted whatever their age.
    */
  def configs(captured: Map[String, String], replicas: Int): Map[String, String] =
    captured.filterNot { case (k, _) => k.startsWith("message.timestamp.") } ++
      Map("retention.ms" -> "-1", "retention.bytes" -> "-1") ++
      captured.get("min.insync.replicas").flatMap(_.toIntOption).map(n => "min.insync.replicas" -> (n min replicas).toString)

  /** The restored offset of a group's committed `offset` on a partition: as many restored records before it as there were
    * captured records before it, counted from `base` (the partition's first restored offset). Offsets are positions, so
    * the lag stays the same number of records.
    */
  def offset(offset: Long, capturedOffsets: Vector[Long], base: Long): Long = {
    // capturedOffsets is sorted: the number of them below `offset`.
    var (lo, hi) = (0, capturedOffsets.length)
    while (lo < hi) { val mid = (lo + hi) >>> 1; if (capturedOffsets(mid) < offset) lo = mid + 1 else hi = mid }
    base + lo
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

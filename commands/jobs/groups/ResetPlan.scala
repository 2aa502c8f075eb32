package bankops.jobs.groups

import io.circe.Json
import io.circe.syntax._
import org.apache.kafka.common.TopicPartition

/** What the cluster says about one partition a reset may move: the group's committed offset (None: it never committed
  * there) and the partition's log bounds (read_committed end).
  */
private[groups] final case class PartitionFacts(tp: TopicPartition, committed: Option[Long], logStart: Long, logEnd: Long)

/** One partition of a reset: where the group is, where it goes (None: left as is), and why when not simply there. */
private[groups] final case class ResetRow(group: String, tp: TopicPartition, current: Option[Long], target: Option[Long], logStart: Long,
                                          logEnd: Long,
                                          note: Option[String]) {
  def changes: Boolean = target.exists(t => !current.contains(t))
  /** Records the group reads again (moving back). */
  def reread: Option[Long] = for (c <- current; t <- target) yield (c - t) max 0L
  /** Records the group never reads (moving forward). */
  def skip: Option[Long] = for (c <- current; t <- target) yield (t - c) max 0L

  def json: Json = Json.obj(
    "group" -> group.asJson, "topic" -> tp.topic.asJson, "partition" -> tp.partition.asJson,
    "current" -> current.asJson, "new" -> target.asJson, "reread" -> reread.asJson, "skip" -> skip.asJson,
    "logStart" -> logStart.asJson, "logEnd" -> logEnd.asJson, "changes" -> changes.asJson, "note" -> note.asJson)
}

/** The rows of a reset, over one or more groups; pure, so every target kind is tested without a cluster. */
private[groups] final case class ResetPlan(rows: List[ResetRow]) {
  def changed: List[ResetRow] = rows.filter(_.changes)
  def isEmpty: Boolean = changed.isEmpty
  def reread: Long = changed.flatMap(_.reread).sum
  def skip: Long = changed.flatMap(_.skip).sum

  /** The offsets to commit, per group: only partitions that move. */
  def offsets: Map[String, Map[TopicPartition, Long]] =
    changed.groupBy(_.group).map { case (g, rs) => g -> rs.flatMap(r => r.target.map(r.tp -> _)).toMap }

  /** What the groups have committed on the plan's partitions now: what `--save-to` writes. */
  def current: List[(String, TopicPartition, Long)] = rows.flatMap(r => r.current.map(c => (r.group, r.tp, c)))
}

private[groups] object ResetPlan {

  /** The plan for one group: `timeOffsets` are the broker's answers for a `timestamp:`/`ago:` target (None: no record
    * that late), `fileOffsets` the file's offsets of this group for a `file:` target. A target outside the log is
    * clamped to it, and the row says so.
    */
  def apply(group: String, target: ResetTarget, facts: List[PartitionFacts],
            timeOffsets: Map[TopicPartition, Option[Long]], fileOffsets: Map[TopicPartition, Long]): ResetPlan =
    ResetPlan(facts.sortBy(f => (f.tp.topic, f.tp.partition)).map(row(group, target, _, timeOffsets, fileOffsets)))

  private def row(group: String, target: ResetTarget, f: PartitionFacts,
                  timeOffsets: Map[TopicPartition, Option[Long]], fileOffsets: Map[TopicPartition, Long]): ResetRow = {
    def at(o: Long, note: Option[String] = None) = ResetRow(group, f.tp, f.committed, Some(o), f.logStart, f.logEnd, note)
    def unchanged(why: String) = ResetRow(group, f.tp, f.committed, None, f.logStart, f.logEnd, Some(why))
    def clamped(requested: Long, what: String) =
      if (requested < f.logStart) at(f.logStart, Some(s"$what is before the log start ${f.logStart}: clamped to it"))
      else if (requested > f.logEnd) at(f.logEnd, Some(s"$what is past the end ${f.logEnd}: clamped to it"))
      else at(requested)
    target match {
      case ResetTarget.Earliest => at(f.logStart)
      case ResetTarget.Latest => at(f.logEnd)
      case ResetTarget.Offset(n) => clamped(n, s"offset $n")
      case ResetTarget.Time(t) => timeOffsets.get(f.tp).flatten match {
          case Some(o) => clamped(o, s"offset $o (at $t)")
          case None => at(f.logEnd, Some(s"no record at or after $t: the end"))
        }
      case ResetTarget.Shift(n) => f.committed match {
          case Some(c) => clamped(c + n, s"offset ${c + n} ($c ${if (n < 0) "-" else "+"} ${n.abs})")
          case None => unchanged("no committed offset to shift from: left as is")
        }
      case ResetTarget.File(p) => fileOffsets.get(f.tp) match {
          case Some(o) => clamped(o, s"offset $o (from ${p.last})")
          case None => unchanged(s"not in ${p.last}: left as is")
        }
    }
  }
}

package bankops.jobs.capture

import scala.collection.mutable

import bankops.services.records.RecordLine

/** What the first pass over a topic's captured records found, before anything is created: how many, the largest (key,
  * value and headers), how many had the broker's append time, each partition's first captured offset, and for each
  * group's committed offset how many captured records lie before it: where it lands among the restored ones.
  */
private[capture] final case class TopicScan(records: Long, largest: Int, logAppendTimes: Long, first: Map[Int, Long],
                                            before: Map[CapturedOffset, Long], counts: Map[Int, Long])

private[capture] object TopicScan {

  /** Takes a topic's lines in order, refusing the first one a restore could not write as captured. */
  final class Counter(file: String, partitions: Int, offsets: List[CapturedOffset]) {
    private val committed = offsets.groupBy(_.partition)
    private val before = mutable.Map.empty[CapturedOffset, Long] ++ offsets.map(_ -> 0L)
    private val first = mutable.Map.empty[Int, Long]
    private val counts = mutable.Map.empty[Int, Long]
    private var records, logAppendTimes = 0L
    private var largest = 0

    def add(l: RecordLine): Either[String, Unit] =
      (l.partition, l.offset) match {
        case (Some(p), Some(o)) if p >= 0 && p < partitions && o >= 0 =>
          if (l.raw.isEmpty && l.value.isDefined)
            Left(s"$file:${l.line}: a value without its raw bytes: not a line capture wrote, and restoring it would write a tombstone")
          else {
            records += 1
            if (l.timestampType.contains("LogAppendTime")) logAppendTimes += 1
            largest = largest max
              (l.key.fold(0)(_.length) + l.raw.fold(0)(_.length) +
                l.headers.map { case (k, v) => k.length + Option(v).fold(0)(_.length) }.sum)
            first.getOrElseUpdate(p, o)
            counts(p) = counts.getOrElse(p, 0L) + 1
            committed.get(p).foreach(_.foreach(c => if (o < c.offset) before(c) += 1))
            Right(())
          }
        case (Some(p), Some(_)) if p < 0 || p >= partitions =>
          Left(s"$file:${l.line}: partition $p, but the captured topic had $partitions (0 to ${partitions - 1})")
        case (_, Some(o)) if o >= 0 => Left(s"$file:${l.line}: no partition")
        case _ => Left(s"$file:${l.line}: no offset, or a negative one")
      }

    def result: TopicScan = TopicScan(records, largest, logAppendTimes, first.toMap, before.toMap, counts.toMap)
  }
}

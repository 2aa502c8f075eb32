package bankops.jobs.inspect

import bankops.services.kafka.Decoded

/** Counts for the closing summary. */
final case class InspectStats(read: Long, shown: Long, undecodable: Long, byRecord: Map[String, Long]) {
  def add(d: Decoded, shownNow: Boolean): InspectStats =
    InspectStats(read + 1, if (shownNow) shown + 1 else shown, if (d.ok) undecodable else undecodable + 1,
      d.envelope.record.fold(byRecord)(r => byRecord.updated(r, byRecord.getOrElse(r, 0L) + 1)))

  def summary: String = {
    val types = byRecord.toList.sortBy(-_._2).map { case (r, n) => s"$r $n" }
    s"$read read, $shown shown, $undecodable undecodable" + (if (types.isEmpty) "" else types.mkString(" (", ", ", ")"))
  }
}

object InspectStats {
  val empty: InspectStats = InspectStats(0, 0, 0, Map.empty)
}

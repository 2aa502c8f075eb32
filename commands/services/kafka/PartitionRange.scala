package bankops.services.kafka

/** The offsets one partition is read over: from `from`, up to but not including `until` (None: no end). */
final case class PartitionRange(from: Long, until: Option[Long]) {
  def isEmpty: Boolean = until.exists(_ <= from)
  def size: Option[Long] = until.map(u => (u - from) max 0L)
}

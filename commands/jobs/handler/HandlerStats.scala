package bankops.jobs.handler

import io.circe.Json

/** The handler's running totals (updated by the batch thread, read by the status reporter), and the slowest batch
  * since the last snapshot: a latency tail shows there first, with the phase it came from.
  */
final class HandlerStats {
  @volatile private var counts = Counts()
  @volatile private var dead = 0L
  @volatile private var timings = BatchTimings()
  @volatile private var slowest = BatchTimings()

  def add(c: Counts): Unit = synchronized { counts = counts + c }
  def timed(t: BatchTimings): Unit = synchronized { timings = timings + t; if (t.total > slowest.total) slowest = t }
  def deadLettered(n: Int): Unit = if (n > 0) synchronized { dead += n }

  /** The totals; the slowest batch since the previous snapshot, which starts anew. */
  def snapshot(lag: Long, nanos: Long): HandlerStatus = synchronized {
    val status = HandlerStatus(counts, dead, lag, nanos, timings, slowest)
    slowest = BatchTimings()
    status
  }
}

/** One status report: totals since start, the rate and the batches' phases since the previous report (and the slowest
  * of those batches), the group's lag.
  */
private[handler] final case class HandlerStatus(counts: Counts, deadLettered: Long, lag: Long, nanos: Long, timings: BatchTimings = BatchTimings(),
                                                slowest: BatchTimings = BatchTimings()) {
  def rate(previous: HandlerStatus): Double = {
    val seconds = (nanos - previous.nanos) / 1e9
    if (seconds <= 0) 0.0 else (counts.commands - previous.counts.commands) / seconds
  }

  def line(previous: HandlerStatus): String = {
    val c = counts
    val failures = if (c.failed.isEmpty) "" else c.failed.toList.sortBy(-_._2).map { case (r, n) => s"$r $n" }.mkString(" (", ", ", ")")
    f"${c.commands} commands (${rate(previous)}%.1f/s): ${c.created} accounts created, ${c.creationFailed} creations failed, " +
      s"${c.confirmed} transfers confirmed, ${c.failed.values.sum} failed$failures, ${c.repeated} repeated; ${c.balanceChanges} balance changes; " +
      s"lag $lag; $deadLettered dead-lettered" + (timings - previous.timings).line + slowest.slowestLine
  }

  def json(previous: HandlerStatus): Json = Json.obj(
    "commands" -> Json.fromLong(counts.commands),
    "commandsPerSecond" -> Json.fromDoubleOrNull(math.round(rate(previous) * 10) / 10.0),
    "created" -> Json.fromLong(counts.created),
    "creationFailed" -> Json.fromLong(counts.creationFailed),
    "confirmed" -> Json.fromLong(counts.confirmed),
    "failed" -> Json.obj(counts.failed.toList.sortBy(_._1).map { case (r, n) => r -> Json.fromLong(n) }: _*),
    "repeated" -> Json.fromLong(counts.repeated),
    "balanceChanges" -> Json.fromLong(counts.balanceChanges),
    "deadLettered" -> Json.fromLong(deadLettered),
    "lag" -> Json.fromLong(lag),
    "batch" -> (timings - previous.timings).json,
    "slowestBatch" -> slowest.json
  )
}

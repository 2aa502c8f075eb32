package bankops.jobs.replay

import fs2.Chunk

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.{AtomicBoolean, AtomicLong, AtomicReference}
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters._

import bankops.services.kafka.Denied

/** The one owner of what a send to a topic knows about its records: how many were read and acknowledged per target
  * partition, which source offsets failed, where each source partition would resume, what the authorizer refused, and
  * (with --verify) where each record landed. The sending stream and the producer's callbacks, on its I/O thread, both
  * report here; the [[DeliveryReport]] is read from it once the sends are awaited.
  */
private[replay] final class DeliveryTracker(val partitions: Int, keepSent: Boolean) {
  private val read = new AtomicLong()
  private val acked = Array.fill(partitions)(new AtomicLong())
  private val failedRecords = new AtomicLong()
  // Per source partition (or a file's lines): the first offset (line) not delivered, and the one after the last read.
  private val failedAt = new ConcurrentHashMap[Int, java.lang.Long]()
  private val nextRead = new ConcurrentHashMap[Int, java.lang.Long]()
  private val sent = new ConcurrentHashMap[(Int, Long), Outgoing]()
  private val refusal = new AtomicReference[Exception]()

  /** A chunk taken from the source, before it is sent. */
  def reading(chunk: Chunk[Outgoing]): Unit = {
    read.addAndGet(chunk.size.toLong)
    chunk.foreach(r => nextRead.merge(r.resumePartition, r.resumeOffset + 1, (a, b) => java.lang.Long.valueOf(a.longValue max b.longValue)))
  }

  /** One chunk's sends: the producer answers each record on its I/O thread; once all are answered, [[Sending.settle]]
    * counts a chunk with any failure as not delivered, every record of it, its source offsets to resume from.
    */
  def sending(chunk: Chunk[Outgoing]): Sending = new Sending(chunk)

  final class Sending private[DeliveryTracker] (chunk: Chunk[Outgoing]) {
    private val anyFailed = new AtomicBoolean(false)
    // Held until every record is answered: the source positions only, not the records' bytes (the producer holds a
    // copy of those), so what a replay holds in flight is the producer's buffer, not that buffer twice over.
    private val partitions = chunk.map(_.resumePartition).toArray
    private val offsets = chunk.map(_.resumeOffset).toArray
    private val kept = if (keepSent) chunk else Chunk.empty[Outgoing]

    /** The producer's answer for the record at `index` of the chunk (read only with --verify, to keep where it
      * landed), or why it was not delivered.
      */
    def answered(index: Int, partition: Int, offset: Long, error: Exception): Unit =
      if (error == null) {
        acked(partition).incrementAndGet()
        if (keepSent) sent.put((partition, offset), kept(index))
      } else {
        anyFailed.set(true)
        if (Denied.isRefusal(error)) refusal.compareAndSet(null, error)
      }

    def settle(): Unit = if (anyFailed.get) partitions.indices.foreach { i =>
      failedRecords.incrementAndGet()
      failedAt.merge(partitions(i), offsets(i), (a, b) => java.lang.Long.valueOf(a.longValue min b.longValue))
    }
  }

  /** The authorizer's first refusal: every later record would be refused too, so the run ends. */
  def refused: Option[Exception] = Option(refusal.get)

  /** Each acknowledged record by where it landed (with --verify). */
  def landed: Map[(Int, Long), Outgoing] = sent.asScala.toMap

  /** `interrupted`: Ctrl-C stopped the reading before everything due was read. */
  def report(took: FiniteDuration, interrupted: Boolean): DeliveryReport = {
    val failures = failedAt.asScala.toMap.map { case (p, off) => p -> off.longValue }
    // Interrupted: each source partition resumes at its first failure, else after the last record read.
    val resumeAt =
      if (!interrupted) failures
      else nextRead.asScala.toMap.map { case (p, next) => p -> failures.get(p).fold(next.longValue)(_ min next.longValue) } ++ failures
    DeliveryReport(read.get, acked.toList.map(_.get), failedRecords.get, resumeAt, took, interrupted)
  }
}

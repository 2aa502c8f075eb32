package bankops.jobs.capture

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.consumer.ConsumerRecord
import org.apache.kafka.common.TopicPartition

import java.util.concurrent.atomic.{AtomicLong, AtomicReference}
import java.nio.charset.StandardCharsets.UTF_8
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.base.Failure
import bankops.services.avro.WireFormat
import bankops.services.config.KafkaSettings
import bankops.services.kafka.{KafkaClients, ReadSpec, StartAt, StopAt, TopicReader}
import bankops.services.records.RecordLine

/** What a restore has created and written so far: what an interruption names as left behind. */
private[capture] final class RestoreProgress {
  private val topics = new AtomicReference(Vector.empty[String])
  private val subjects = new AtomicReference(Vector.empty[String])
  val total = new AtomicLong
  val written = new AtomicLong

  def created(topic: String): Unit = { topics.updateAndGet(_ :+ topic); () }
  def registered(subject: String): Unit = { subjects.updateAndGet(s => if (s.contains(subject)) s else s :+ subject); () }

  def interrupted(signal: String): RestoreInterrupted = RestoreInterrupted(signal, topics.get.toList, subjects.get.toList, written.get, total.get)
}

/** A restore stopped by a signal: what it had created and written, left in place for `--resume` to finish. */
final case class RestoreInterrupted(signal: String, topics: List[String], subjects: List[String], written: Long, total: Long) {
  def line: String =
    if (topics.isEmpty && subjects.isEmpty && written == 0) s"restore: interrupted ($signal) before anything was created"
    else
      s"restore: interrupted ($signal) after writing $written of $total record(s); left in place: " +
        (Option.when(topics.nonEmpty)(s"topic(s) created ${topics.mkString(", ")}") ++
          Option.when(subjects.nonEmpty)(s"subject(s) registered ${subjects.mkString(", ")}")).mkString("; ") +
        ". The same command with --resume writes the rest, without duplicates"
}

/** Where an interrupted restore left a target: per partition, how many of the archive's records the copy holds (its
  * first ones) and the offset of the first; what `--resume` skips, and where the groups' positions count from.
  */
private[capture] final case class Resumed(held: Map[Int, Long], bases: Map[Int, Long]) {
  def records: Long = held.values.sum
}

private[capture] object RestoreResume {
  val Fresh: Resumed = Resumed(Map.empty, Map.empty)

  /** Pure: whether a record of the copy is the archive's line as restore writes it (the same key, value, headers and
    * time), a frame's schema id (its bytes 1 to 4) aside, which restore translates.
    */
  def same(line: RecordLine, r: ConsumerRecord[Array[Byte], Array[Byte]]): Boolean =
    sameBytes(line.key, Option(r.key)) && sameBytes(line.raw, Option(r.value)) && line.timestamp.forall(_ == r.timestamp) &&
      line.headers.size == r.headers.toArray.length &&
      line.headers.zip(r.headers.toArray).forall { case ((k, v), h) => k == h.key && java.util.Arrays.equals(v, h.value) }

  private def sameBytes(a: Option[Array[Byte]], b: Option[Array[Byte]]): Boolean = (a, b) match {
    case (None, None) => true
    case (Some(x), Some(y)) if framed(x) && framed(y) && x.length == y.length =>
      x(0) == y(0) && java.util.Arrays.equals(x, WireFormat.HeaderSize, x.length, y, WireFormat.HeaderSize, y.length)
    case (Some(x), Some(y)) => java.util.Arrays.equals(x, y)
    case _ => false
  }

  private def framed(b: Array[Byte]) = b.length >= WireFormat.HeaderSize && b(0) == WireFormat.MagicByte

  /** Pure: a 64-bit digest of a record as [[same]] compares it (partition, key, value with a frame's schema id aside,
    * headers exactly, and the time when `time` is given): equal records have equal digests.
    */
  def digest(partition: Int, key: Option[Array[Byte]], value: Option[Array[Byte]], headers: Seq[(String, Array[Byte])], time: Option[Long])
      : Long = {
    import scala.util.hashing.MurmurHash3
    def exact(b: Array[Byte], seed: Int): Int = if (b == null) MurmurHash3.mix(seed, -1) else MurmurHash3.bytesHash(b, seed + b.length)
    def frame(b: Option[Array[Byte]], seed: Int): Int = b.fold(MurmurHash3.mix(seed, -2)) { x =>
      exact(if (framed(x)) x.take(1) ++ x.drop(WireFormat.HeaderSize) else x, seed)
    }
    def half(seed: Int): Int = {
      val h = List(MurmurHash3.mix(seed, partition), frame(key, seed + 1), frame(value, seed + 2),
        time.fold(MurmurHash3.mix(seed, -3))(t => MurmurHash3.mix(MurmurHash3.mix(seed + 3, t.toInt), (t >>> 32).toInt))) ++
        headers.map { case (k, v) => MurmurHash3.mix(MurmurHash3.bytesHash(k.getBytes(UTF_8), seed + 4), exact(v, seed + 5)) }
      MurmurHash3.orderedHash(h, seed)
    }
    (half(0x5eed).toLong << 32) | (half(0x0b5e55ed) & 0xffffffffL)
  }

  /** How many records a restore into `target` may hold and still be compared with the archive's (8 bytes each). */
  val MaxCompared = 4000000L

  /** How many of the archive's records of `file` the partitions of `target` in `held` (from, to) already hold: records
    * of the copy digested, then the archive's lines looked up among them (a line without a time, which restore lets
    * the producer stamp, by the digests without one); None when the copy holds more than [[MaxCompared]]. `times`:
    * whether the copy keeps the records' own times (a LogAppendTime topic stamps its own).
    */
  def duplicates(kafka: KafkaSettings, timeout: FiniteDuration, archive: ArchiveReader, file: String, target: String,
                 held: Map[Int, (Long, Long)], times: Boolean): IO[Option[Long]] =
    if (held.values.map { case (a, b) => b - a }.sum > MaxCompared) IO.none
    else {
      val ends = StopAt.Ends(held.map { case (p, (_, end)) => new TopicPartition(target, p) -> end })
      TopicReader.open(kafka, ReadSpec(List(target), Some(held.keys.toList.sorted), StartAt.Beginning, ends), timeout).use { case (_, records) =>
        records.map { r =>
          val headers = r.headers.toArray.toList.map(h => h.key -> h.value)
          (digest(r.partition, Option(r.key), Option(r.value), headers, Option.when(times)(r.timestamp)),
            digest(r.partition, Option(r.key), Option(r.value), headers, None))
        }.compile.to(Array)
      }.flatMap { copy =>
        val (timed, timeless) = (copy.map(_._1).sorted, copy.map(_._2).sorted)
        archive.stream(file).map(RestoreRun.parsed(file)).filter(l => held.contains(l.partition.getOrElse(0)))
          .filter { l =>
            val time = if (times) l.timestamp else None
            val (in, t) = if (l.timestamp.isEmpty) (timeless, None) else (timed, time)
            java.util.Arrays.binarySearch(in, digest(l.partition.getOrElse(0), l.key, l.raw, l.headers, t)) >= 0
          }.compile.count.map(Some(_))
      }
    }

  /** Pure: the partitions of a copy holding more records than the archive has for them: not its interrupted restore. */
  def excess(held: Map[Int, Long], counts: Map[Int, Long]): Option[(Int, Long, Long)] =
    held.toList.sorted.collectFirst { case (p, n) if n > counts.getOrElse(p, 0L) => (p, n, counts.getOrElse(p, 0L)) }

  /** Checks that `target` holds, on each partition, the first of the archive's records of that partition and nothing
    * else (its last record is the archive's record at that place), else exit 2 naming the first that differs.
    */
  def check(kafka: KafkaSettings, timeout: FiniteDuration, archive: ArchiveReader, file: String, target: String, starts: Map[Int, Long],
            ends: Map[Int, Long], counts: Map[Int, Long]): IO[Resumed] = {
    val held = ends.map { case (p, e) => p -> (e - starts.getOrElse(p, e)) }.filter(_._2 > 0)
    def refuse(why: String) = IO.raiseError(Failure.BadInput(s"--resume: target topic $target $why: not what an interrupted restore of " +
        s"this archive left (a fresh --topic-prefix restores it anew); nothing written"))
    excess(held, counts) match {
      case Some((p, n, m)) => refuse(s"partition $p holds $n record(s), the archive's ${archive.path.last} $m")
      case None if held.isEmpty => IO.pure(Fresh)
      case None =>
        (lines(archive, file, held), lastRecords(kafka, timeout, target, held.keySet.map(p => p -> (ends(p) - 1)).toMap)).tupled.flatMap {
          case (wanted, last) =>
            held.keys.toList.sorted.find(p => !wanted.get(p).exists(l => last.get(p).exists(same(l, _)))) match {
              case Some(p) =>
                refuse(s"partition $p: its last record (offset ${ends(p) - 1}) is not the archive's record ${held(p)} of that partition")
              case None => IO.pure(Resumed(held, held.keys.map(p => p -> starts(p)).toMap))
            }
        }
    }
  }

  /** The archive's `n`th record line (from 1) of each partition in `nth`. */
  private def lines(archive: ArchiveReader, file: String, nth: Map[Int, Long]): IO[Map[Int, RecordLine]] =
    archive.stream(file).map(RestoreRun.parsed(file)).mapAccumulate(Map.empty[Int, Long]) { (seen, l) =>
      val p = l.partition.getOrElse(0)
      val count = seen.getOrElse(p, 0L) + 1
      (seen.updated(p, count), Option.when(nth.get(p).contains(count))(p -> l))
    }.collect { case (_, Some(found)) => found }.take(nth.size.toLong).compile.toList.map(_.toMap)

  /** The record at `offsets` of each partition of `topic`, read back from the copy. */
  private def lastRecords(kafka: KafkaSettings, timeout: FiniteDuration, topic: String, offsets: Map[Int, Long])
      : IO[Map[Int, ConsumerRecord[Array[Byte], Array[Byte]]]] =
    KafkaClients.javaConsumer(kafka, timeout, few = Some(offsets.size)).use { c =>
      IO.interruptible {
        val tps = offsets.keys.map(new TopicPartition(topic, _)).toList
        c.assign(tps.asJava)
        tps.foreach(tp => c.seek(tp, offsets(tp.partition)))
        val deadline = System.nanoTime + timeout.toNanos
        val found = scala.collection.mutable.Map.empty[Int, ConsumerRecord[Array[Byte], Array[Byte]]]
        while (found.size < offsets.size && System.nanoTime < deadline) {
          c.poll(java.time.Duration.ofMillis(200)).asScala.foreach(r => if (r.offset == offsets(r.partition)) found.getOrElseUpdate(r.partition, r))
          found.keys.foreach(p => c.pause(List(new TopicPartition(topic, p)).asJava))
        }
        if (found.size < offsets.size)
          throw Failure.Unavailable(
            s"--resume: the last records of $topic partitions ${offsets.keySet.diff(found.keySet).toList.sorted.mkString(", ")} " +
              s"could not be read within ${timeout.toSeconds}s")
        found.toMap
      }
    }
}

package bankops.services.kafka

import cats.effect.{IO, Resource}
import cats.syntax.all._
import fs2.{Chunk, Stream}
import org.apache.kafka.clients.consumer.{ConsumerRecord, KafkaConsumer}
import org.apache.kafka.common.TopicPartition

import java.time.Duration
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.base.Failure
import bankops.services.config.KafkaSettings

/** What to read: topics, optionally some partitions, and where to start and stop. `byKey`: without `partitions`, only
  * the partition the default partitioner gives this key in each topic ([[KeyPartition]]). `after`: a partition's
  * first offset is at least this one. `uncommitted`: read_uncommitted, past the last stable offset up to the high
  * watermark (records of transactions still open, and any aborted ones in that range).
  */
final case class ReadSpec(topics: List[String], partitions: Option[List[Int]], start: StartAt, stop: StopAt, byKey: Option[String] = None,
                          after: Map[TopicPartition, Long] = Map.empty, uncommitted: Boolean = false)

/** The ranges a read covers, fixed when it starts (so `--to end` means the end at that moment), and each topic's
  * partition count.
  */
final case class ReadPlan(ranges: Map[TopicPartition, PartitionRange], partitionCounts: Map[String, Int] = Map.empty) {
  def total: Option[Long] = ranges.values.toList.traverse(_.size).map(_.sum)
}

/** Reads records as raw bytes from assigned partitions: no consumer group, nothing committed.
  *
  * A plain poll loop on the Java consumer, one blocking call per batch: the consumer's position after
  * each poll says exactly when a partition is done (even when its last offsets are transaction markers
  * that never arrive as records), which a buffered stream cannot; and it reads several times faster
  * here than fs2-kafka's scheduled polling. Settings come from [[KafkaClients.consumerSettings]].
  */
object TopicReader {
  type Raw = ConsumerRecord[Array[Byte], Array[Byte]]

  def open(kafka: KafkaSettings, spec: ReadSpec, timeout: FiniteDuration, few: Option[Long] = None): Resource[IO, (ReadPlan, Stream[IO, Raw])] =
    KafkaClients.javaConsumer(kafka, timeout, few.filter(_ <= 1000).map(_.toInt), spec.uncommitted).evalMap { consumer =>
      val refused = KafkaClients.denied(kafka, Doing.reading(spec.topics))
      IO.blocking(plan(consumer, spec)).flatMap(IO.fromEither(_)).adaptError(refused).map { p =>
        val live = p.ranges.filterNot(_._2.isEmpty)
        p ->
          (if (live.isEmpty) Stream.empty
           else (Stream.eval(IO.blocking {
             consumer.assign(live.keys.toList.asJava)
             live.foreach { case (tp, r) => consumer.seek(tp, r.from) }
           }) >> read(consumer, live)).adaptError(refused))
      }
    }

  private def plan(consumer: KafkaConsumer[Array[Byte], Array[Byte]], spec: ReadSpec): Either[Failure, ReadPlan] =
    spec.topics.traverse { t =>
      val all = Option(consumer.partitionsFor(t)).map(_.asScala.toList.map(_.partition).sorted).getOrElse(Nil)
      if (all.isEmpty) Left(Failure.BadInput(s"topic $t does not exist"))
      else (spec.partitions match {
        case None => Right(spec.byKey.fold(all)(k => List(KeyPartition.of(k, all.size))).map(new TopicPartition(t, _)))
        case Some(ps) => ps.find(p => !all.contains(p))
            .map(bad => Failure.BadInput(s"topic $t has no partition $bad (it has ${all.mkString(", ")})")).toLeft(
              ps.distinct.map(new TopicPartition(t, _)))
      }).map(tps => (t -> all.size, tps))
    }.map { perTopic =>
      val tps = perTopic.flatMap(_._2)
      val set = tps.asJava
      val beginning = consumer.beginningOffsets(set).asScala
      val end = consumer.endOffsets(set).asScala
      def times(at: Option[Long]): Map[TopicPartition, Option[Long]] = at.fold(Map.empty[TopicPartition, Option[Long]]) { ms =>
        consumer.offsetsForTimes(tps.map(tp => tp -> java.lang.Long.valueOf(ms)).toMap.asJava).asScala.toMap.map { case (tp, o) =>
          tp -> Option(o).map(_.offset)
        }
      }
      val startTimes = times(spec.start match { case StartAt.Time(at) => Some(at.toEpochMilli); case _ => None })
      val stopTimes = times(spec.stop match { case StopAt.Time(at) => Some(at.toEpochMilli); case _ => None })
      ReadPlan(tps.map { tp =>
          val start = spec.start match { case StartAt.Offsets(m) => StartAt.Offset(m.getOrElse(tp, 0L)); case s => s }
          // An end fixed before as offset e is the inclusive offset e - 1 (-1, before any record, clamps to the log's start).
          val stop = spec.stop match { case StopAt.Ends(m) => m.get(tp).fold[StopAt](StopAt.End)(e => StopAt.Offset(e - 1)); case s => s }
          val range = Position.range(start, stop, beginning(tp).longValue, end(tp).longValue, startTimes.get(tp).flatten, stopTimes.get(tp).flatten)
          tp -> spec.after.get(tp).fold(range)(a => range.copy(from = range.from max a))
        }.toMap, perTopic.map(_._1).toMap)
    }

  /** The most record bytes (keys and values) one chunk holds: a poll of large records is split, so what the chunk
    * becomes downstream (decoded values, JSON lines, archive bytes, two chunks at a time) stays bounded by bytes, not
    * by `max.poll.records` times the largest record.
    */
  val ChunkBytes: Long = 2L * 1024 * 1024

  /** Pure: `records` cut into runs of at most [[ChunkBytes]] (at least one record each), in order. */
  def split(records: Array[Raw]): List[Chunk[Raw]] = {
    val out = List.newBuilder[Chunk[Raw]]
    var start, i = 0
    var bytes = 0L
    while (i < records.length) {
      val r = records(i)
      val size = (r.serializedKeySize max 0).toLong + (r.serializedValueSize max 0)
      if (i > start && bytes + size > ChunkBytes) { out += Chunk.array(records, start, i - start); start = i; bytes = 0L }
      bytes += size; i += 1
    }
    if (i > start) out += Chunk.array(records, start, i - start)
    out.result()
  }

  /** Polls until every bounded partition's position reaches its end (never, when following). */
  private def read(consumer: KafkaConsumer[Array[Byte], Array[Byte]], live: Map[TopicPartition, PartitionRange]): Stream[IO, Raw] = {
    val bounded = live.collect { case (tp, PartitionRange(_, Some(u))) => tp -> u }
    val following = bounded.size < live.size
    polls(consumer, bounded, following).flatMap(records => Stream.emits(split(records)).flatMap(Stream.chunk))
  }

  private def polls(consumer: KafkaConsumer[Array[Byte], Array[Byte]], bounded: Map[TopicPartition, Long], following: Boolean)
      : Stream[IO, Array[Raw]] =
    Stream.unfoldEval(bounded) { pending =>
      if (!following && pending.isEmpty) IO.pure(None)
      else IO.blocking {
        val polled = consumer.poll(Duration.ofMillis(200))
        // Per partition, not per record: only a partition's last fetch can run past its end.
        val kept = polled.partitions.asScala.iterator.flatMap { tp =>
          val records = polled.records(tp)
          bounded.get(tp) match {
            case Some(until) if !records.isEmpty && records.get(records.size - 1).offset >= until => records.asScala.iterator.filter(_.offset < until)
            case _ => records.asScala.iterator
          }
        }.toArray
        val done = pending.filter { case (tp, until) => consumer.position(tp) >= until }.keySet
        if (done.nonEmpty) consumer.pause(done.asJava)
        Some(kept -> (pending -- done))
      }
    }
}

package bankops.kafka

import cats.Order
import cats.data.NonEmptySet
import cats.effect.{IO, Ref, Resource}
import cats.syntax.all._
import fs2.Stream
import fs2.concurrent.SignallingRef
import fs2.kafka.{ConsumerRecord, KafkaConsumer}
import org.apache.kafka.common.TopicPartition

import scala.concurrent.duration._

import bankops.cli.Failure
import bankops.config.KafkaSettings

/** What to read: topics, optionally some partitions, and where to start and stop. */
final case class ReadSpec(topics: List[String], partitions: Option[List[Int]], start: StartAt, stop: StopAt)

/** The ranges a read covers, fixed when it starts (so `--to end` means the end at that moment). */
final case class ReadPlan(ranges: Map[TopicPartition, PartitionRange]) {
  def total: Option[Long] = ranges.values.toList.traverse(_.size).map(_.sum)
}

/** Reads records as raw bytes from assigned partitions: no consumer group, nothing committed. */
object TopicReader {
  type Raw = ConsumerRecord[Array[Byte], Array[Byte]]

  private implicit val tpOrder: Order[TopicPartition] = Order.by(tp => (tp.topic, tp.partition))

  def open(kafka: KafkaSettings, spec: ReadSpec, timeout: FiniteDuration): Resource[IO, (ReadPlan, Stream[IO, Raw])] =
    KafkaClients.consumer(kafka, timeout).evalMap { consumer =>
      plan(consumer, spec).flatMap { p =>
        val live = p.ranges.filterNot(_._2.isEmpty)
        NonEmptySet.fromSet(scala.collection.immutable.SortedSet.from(live.keySet)(tpOrder.toOrdering)) match {
          case None => IO.pure(p -> Stream.empty.covaryAll[IO, Raw])
          case Some(tps) =>
            consumer.assign(tps) >> live.toList.traverse_ { case (tp, r) => consumer.seek(tp, r.from) } >>
              read(consumer, live).map(p -> _)
        }
      }
    }

  private def plan(consumer: KafkaConsumer[IO, Array[Byte], Array[Byte]], spec: ReadSpec): IO[ReadPlan] =
    for {
      tps <- spec.topics.flatTraverse { t =>
        consumer.partitionsFor(t).flatMap { infos =>
          val all = infos.map(_.partition).sorted
          if (all.isEmpty) IO.raiseError(Failure.BadInput(s"topic $t does not exist"))
          else spec.partitions match {
            case None => IO.pure(all.map(new TopicPartition(t, _)))
            case Some(ps) => ps.find(p => !all.contains(p)) match {
              case Some(bad) => IO.raiseError(Failure.BadInput(s"topic $t has no partition $bad (it has ${all.mkString(", ")})"))
              case None => IO.pure(ps.distinct.map(new TopicPartition(t, _)))
            }
          }
        }
      }
      set = tps.toSet
      beginning <- consumer.beginningOffsets(set)
      end <- consumer.endOffsets(set)
      startTimes <- times(consumer, set, spec.start match { case StartAt.Time(at) => Some(at.toEpochMilli); case _ => None })
      stopTimes <- times(consumer, set, spec.stop match { case StopAt.Time(at) => Some(at.toEpochMilli); case _ => None })
    } yield ReadPlan(tps.map { tp =>
      tp -> Position.range(spec.start, spec.stop, beginning(tp), end(tp), startTimes.get(tp).flatten, stopTimes.get(tp).flatten)
    }.toMap)

  private def times(consumer: KafkaConsumer[IO, Array[Byte], Array[Byte]], tps: Set[TopicPartition], at: Option[Long]): IO[Map[TopicPartition, Option[Long]]] =
    at.fold(IO.pure(Map.empty[TopicPartition, Option[Long]]))(ms =>
      consumer.offsetsForTimes(tps.map(_ -> ms).toMap).map(_.map { case (tp, o) => tp -> o.map(_.offset) }))

  /** Records below each partition's `until`; ends when every bounded partition is done. A partition whose
    * position passed its end without delivering the last offset (transaction markers) is finished by a
    * periodic position check once it has been quiet for two checks.
    */
  private def read(consumer: KafkaConsumer[IO, Array[Byte], Array[Byte]], live: Map[TopicPartition, PartitionRange]): IO[Stream[IO, Raw]] = {
    val bounded = live.collect { case (tp, PartitionRange(_, Some(u))) => tp -> u }
    val records = consumer.records.map(_.record)
    if (bounded.size < live.size) IO.pure(records)
    else for {
      pending <- Ref.of[IO, Map[TopicPartition, Long]](bounded)
      lastSeen <- Ref.of[IO, Map[TopicPartition, (Long, Int)]](Map.empty)
      allDone <- SignallingRef[IO, Boolean](false)
    } yield {
      val main = records.chunks.evalMap { chunk =>
        pending.modify { m =>
          val kept = chunk.filter(r => m.get(new TopicPartition(r.topic, r.partition)).exists(r.offset < _))
          val finished = kept.toList.collect { case r if m.get(new TopicPartition(r.topic, r.partition)).exists(r.offset + 1 >= _) => new TopicPartition(r.topic, r.partition) }
          val left = m -- finished
          (left, (kept, left.isEmpty))
        }.flatTap { case (kept, _) =>
          lastSeen.update(s => kept.foldLeft(s)((acc, r) => acc.updated(new TopicPartition(r.topic, r.partition), (r.offset, 0))))
        }
      }.takeThrough { case (_, done) => !done }.flatMap { case (kept, _) => Stream.chunk(kept) }
      val quietCheck = Stream.awakeEvery[IO](1.second).evalMap { _ =>
        pending.get.flatMap(_.toList.traverse { case (tp, until) =>
          consumer.position(tp).flatMap { pos =>
            lastSeen.modify { s =>
              val (off, quiet) = s.getOrElse(tp, (-1L, 0))
              (s.updated(tp, (off, quiet + 1)), pos >= until && quiet + 1 >= 2)
            }.map(done => if (done) Some(tp) else None)
          }
        }).flatMap(done => pending.updateAndGet(_ -- done.flatten)).flatMap(left => allDone.set(true).whenA(left.isEmpty))
      }
      main.concurrently(quietCheck).interruptWhen(allDone)
    }
  }
}

package bankops.jobs.capture

import cats.effect.IO
import org.apache.kafka.clients.admin.Admin
import org.apache.kafka.common.TopicPartition

import scala.concurrent.duration._

import bankops.base.Shell
import bankops.services.kafka.{EndOffsets, ReadSpec, StopAt}

/** Where a capture's window ends, fixed at one instant for every topic: `stop` for the committed read, and where
  * `--open-transactions read` reads on past each partition's last stable offset (from, to): uncommitted records.
  */
private[capture] final case class CaptureCut(stop: StopAt, pastStable: Map[TopicPartition, (Long, Long)]) {

  /** The read of `topic` past its partitions' last stable offsets (read_uncommitted), if the cut has one. */
  def uncommitted(topic: String, from: ReadSpec): Option[ReadSpec] = {
    val mine = pastStable.filter(_._1.topic == topic)
    Option.when(mine.nonEmpty)(from.copy(partitions = Some(mine.keys.map(_.partition).toList.sorted),
        stop = StopAt.Ends(mine.map { case (tp, (_, to)) => tp -> to }), after = mine.map { case (tp, (lso, _)) => tp -> lso },
        uncommitted = true))
  }

  /** The reads of `first`'s topic: `first`, then the read past its last stable offsets if the cut has one. */
  def reads(topic: String, first: ReadSpec): List[ReadSpec] = first :: uncommitted(topic, first).toList

  /** Each partition's last stable offset, where records past it are read. */
  def stable: Map[TopicPartition, Long] = pastStable.map { case (tp, (lso, _)) => tp -> lso }
}

private[capture] object CaptureCut {

  /** The cut of a window that stops at `to`: with `end`, every partition's end in one request (the last stable offsets,
    * or the high watermarks once the open transactions ended, or both for a read past them).
    */
  def apply(admin: Admin, partitions: List[TopicPartition], to: StopAt, policy: AtOpenTransaction, shell: Shell): IO[CaptureCut] =
    if (to != StopAt.End) IO.pure(CaptureCut(to, Map.empty))
    else policy match {
      case AtOpenTransaction.Stop => EndOffsets.ends(admin, partitions).map(e => CaptureCut(StopAt.Ends(e), Map.empty))
      case AtOpenTransaction.Read => ends(admin, partitions).map { case (high, stable) => CaptureCut(StopAt.Ends(stable), open(stable, high)) }
      case AtOpenTransaction.Wait(atMost) =>
        ends(admin, partitions).flatMap { case (high, stable) =>
          val held = open(stable, high)
          if (held.isEmpty) IO.pure(CaptureCut(StopAt.Ends(stable), Map.empty))
          else
            shell.info(s"capture: waiting up to ${atMost.toSeconds}s for the transaction(s) open on ${held.keys.map(_.toString).toList.sorted
                .mkString(", ")} to end") >>
              IO.monotonic.flatMap(started =>
                settle(admin, held.map { case (tp, (_, h)) => tp -> h }, started + atMost).flatMap { last =>
                  val unsettled = held.collect { case (tp, (_, h)) if last.getOrElse(tp, 0L) < h => tp }.toSet
                  IO.monotonic.flatMap(now =>
                    shell.info(
                      if (unsettled.isEmpty) s"capture: they ended after ${(now - started).toMillis} ms: the window ends at the cut"
                      else s"capture: still open after ${atMost.toSeconds}s on ${unsettled.map(_.toString).toList.sorted.mkString(", ")}: " +
                        "those partitions stop at their last stable offset"))
                    // A partition still held stops where its last stable offset stood at the last look: one cut still.
                    .as(CaptureCut(StopAt.Ends(stable ++ held.map { case (tp, (_, h)) => tp -> (if (unsettled(tp)) last(tp) else h) }),
                        Map.empty))
                })
        }
    }

  /** The high watermarks, then the last stable offsets: asked in that order, a record written between the two can
    * only raise the stable one, never pass for an open transaction's.
    */
  private def ends(admin: Admin, partitions: List[TopicPartition]): IO[(Map[TopicPartition, Long], Map[TopicPartition, Long])] =
    EndOffsets.highWatermarks(admin, partitions).flatMap(high => EndOffsets.ends(admin, partitions).map(high -> _))

  /** Pure: the partitions whose high watermark is past their last stable offset: (stable, high). */
  def open(stable: Map[TopicPartition, Long], high: Map[TopicPartition, Long]): Map[TopicPartition, (Long, Long)] =
    stable.collect { case (tp, s) if high.getOrElse(tp, s) > s => tp -> (s, high(tp)) }

  /** Polls the last stable offsets until every partition's has reached `high`, or the deadline passes: the last ones seen. */
  private def settle(admin: Admin, high: Map[TopicPartition, Long], deadline: FiniteDuration): IO[Map[TopicPartition, Long]] =
    EndOffsets.ends(admin, high.keys).flatMap { stable =>
      if (high.forall { case (tp, h) => stable.getOrElse(tp, 0L) >= h }) IO.pure(stable)
      else IO.monotonic.flatMap(now => if (now >= deadline) IO.pure(stable) else IO.sleep(250.millis) >> settle(admin, high, deadline))
    }
}

package bankops.jobs.groups

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.admin.Admin
import org.apache.kafka.common.TopicPartition

import scala.concurrent.duration._

import bankops.services.config.KafkaSettings
import bankops.services.kafka.{ConsumerGroups, EndOffsets, RecordTimes}

/** Reads groups for `list` and `describe`: descriptions, committed offsets, ends, and the age of the next record. */
private[groups] final class GroupReader(admin: Admin, kafka: KafkaSettings, timeout: FiniteDuration) {

  def list: IO[List[GroupListing]] =
    ConsumerGroups.names(admin).flatMap { names =>
      ConsumerGroups.existing(admin, names).flatMap(_.traverse { d =>
        ConsumerGroups.lag(admin, d.group).map(lag => GroupListing(d.group, d.state, d.members.size, d.protocol, lag))
      })
    }

  def describe(groups: List[String]): IO[List[GroupStatus]] =
    ConsumerGroups.describe(admin, groups).flatMap(_.traverse { d =>
      val assigned = d.members.flatMap(m => m.assignment.map(_ -> m.clientId)).toMap
      for {
        all <- ConsumerGroups.committed(admin, d.group)
        // A topic deleted since the group committed on it (or was assigned it) has no partitions to describe.
        partitions <- EndOffsets.existing(admin, all.keySet ++ assigned.keySet).map(_.sortBy(tp => (tp.topic, tp.partition)))
        live = partitions.toSet
        committed = all.filter { case (tp, _) => live(tp) }
        ends <- EndOffsets.ends(admin, partitions)
        starts <- EndOffsets.beginnings(admin, partitions)
        behind = committed.collect { case (tp, c) if c < ends(tp) => tp -> (c max starts(tp)) }
        // A short fetch: the age of the next record is a nicety, not worth waiting the whole timeout for.
        times <- RecordTimes.at(kafka, behind, timeout min 5.seconds)
        now <- IO.realTime.map(_.toMillis)
      } yield GroupStatus(d,
        partitions.map { tp =>
          val c = committed.get(tp)
          val millis = c.flatMap(o => if (o >= ends(tp)) Some(0L) else times.get(tp).map(t => (now - t) max 0L))
          PartitionLag(tp, c, ends(tp), millis, assigned.get(tp))
        })
    })
}

private[groups] object GroupReader {
  /** The facts a reset plans from: the group's committed offsets and each partition's log bounds. */
  def facts(admin: Admin, group: String, partitions: List[TopicPartition]): IO[List[PartitionFacts]] =
    (ConsumerGroups.committed(admin, group), EndOffsets.beginnings(admin, partitions), EndOffsets.ends(admin, partitions)).mapN { (c, starts, ends) =>
      partitions.map(tp => PartitionFacts(tp, c.get(tp), starts(tp), ends(tp)))
    }
}

package bankops.jobs.handler

import org.apache.kafka.clients.consumer.KafkaConsumer
import org.apache.kafka.common.TopicPartition

import scala.jdk.CollectionConverters._

/** Partitions held back because a command in them names an account some transaction holds past the lock wait (a
  * prepared transaction nobody settles, another deployment's): the partition is sought back to its first record of the
  * batch and paused, and the batch goes on with the other partitions. A poll is one batch, so before this one held
  * account stopped every partition. The accounts are looked at again every second without waiting
  * ([[LedgerDb.stillHeld]]); once one is free, every paused partition resumes, and those still naming a held account
  * are held back again. Used on the loop's thread only.
  */
private[handler] final class HeldBack(consumer: KafkaConsumer[Array[Byte], Array[Byte]], decoder: CommandDecoder, log: String => Unit) {
  private var held = Map.empty[String, Option[String]]
  private var paused = Set.empty[TopicPartition]
  private var nextLook = 0L

  def add(more: Map[String, Option[String]]): Unit = {
    held ++= more
    nextLook = System.nanoTime() + HeldBack.LookAgain
  }

  /** The records of the partitions that may go on; the others are sought back to their first record here and paused. */
  def going(records: Vector[Batch.Raw]): Vector[Batch.Raw] =
    if (held.isEmpty) records
    else {
      def partition(r: Batch.Raw) = new TopicPartition(r.topic, r.partition)
      // Each record decoded once: the first in each partition that names a held account, with the accounts it names.
      val firstNaming = records.foldLeft(Map.empty[TopicPartition, (Batch.Raw, Set[String])]) { (found, r) =>
        if (found.contains(partition(r))) found
        else {
          val named = decoder.decode(r.value).toOption.collect { case Right(t) => Set(t.from, t.to).filter(held.contains) }.getOrElse(Set.empty)
          if (named.isEmpty) found else found.updated(partition(r), (r, named))
        }
      }
      firstNaming.foreach { case (tp, (first, named)) =>
        val from = records.iterator.filter(partition(_) == tp).map(_.offset).min
        consumer.seek(tp, from)
        consumer.pause(List(tp).asJava)
        if (!paused(tp))
          log(s"handler: holding back partition ${tp.partition} of ${tp.topic} from offset $from (its record at " +
            s"${first.offset} names ${AccountsHeld.describe(held.filter(h => named(h._1)))}); the other partitions go on")
      }
      paused ++= firstNaming.keySet
      records.filterNot(r => firstNaming.contains(partition(r)))
    }

  /** Before a poll: the held accounts looked at again once a second; when one is free, the paused partitions resume. */
  def lookAgain(db: LedgerDb): Unit =
    if (held.nonEmpty && System.nanoTime() >= nextLook) {
      val still = db.stillHeld(held.keySet)
      nextLook = System.nanoTime() + HeldBack.LookAgain
      if (still.size < held.size) {
        log(s"handler: ${(held.keySet -- still).toList.sorted.mkString(", ")} no longer held: resuming " +
          HandlerLoop.partitionList(paused))
        held = held.filter(h => still(h._1))
        consumer.resume(paused.intersect(consumer.assignment().asScala.toSet).asJava)
        paused = Set.empty
      }
    }

  /** Partitions given up are no longer paused here (the consumer forgets their pause too). */
  def revoked(partitions: Iterable[TopicPartition]): Unit = paused --= partitions

  def isEmpty: Boolean = held.isEmpty
}

private[handler] object HeldBack {
  val LookAgain: Long = 1000L * 1000 * 1000
}

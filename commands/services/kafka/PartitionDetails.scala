package bankops.services.kafka

import java.time.Instant

/** One partition as the cluster has it. Offsets are absent when its leader could not be asked (an offline partition);
  * `replicaSizes` is each broker's replica size on disk; the record times come from the broker's time index: the
  * first record's (in offset order) and the largest.
  */
final case class PartitionDetails(
    partition: Int,
    leader: Option[Int],
    replicas: List[Int],
    isr: List[Int],
    logStart: Option[Long],
    lastStable: Option[Long],
    end: Option[Long],
    replicaSizes: Map[Int, Long],
    firstRecord: Option[Instant],
    lastRecord: Option[Instant]
) {
  def underReplicated: Boolean = isr.size < replicas.size
  def offline: Boolean = leader.isEmpty

  /** The leader's replica size (what readers fetch from), else the largest replica's. */
  def size: Option[Long] = leader.flatMap(replicaSizes.get).orElse(replicaSizes.values.maxOption)

  def flags: List[String] = (if (offline) List("offline") else Nil) ++ (if (underReplicated) List("under-replicated") else Nil)
}

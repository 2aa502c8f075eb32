package bankops.jobs.replay

import org.apache.kafka.clients.producer.ProducerRecord
import org.apache.kafka.common.header.internals.RecordHeader

import scala.jdk.CollectionConverters._

/** A record on its way to the target: where it came from (source partition and offset, as a file's line may say too;
  * `line`: its line in the file, 0 for a topic's record), and exactly the key, value, headers and timestamp to send.
  */
private[replay] final case class Outgoing(sourcePartition: Int, sourceOffset: Long, key: Array[Byte], value: Array[Byte],
                                          headers: List[(String, Array[Byte])], timestamp: Option[Long], line: Long = 0) {

  /** Where a replay resumes from it: its source partition and offset, or for a file's line [[Outgoing.FileLines]] and
    * the line (a captured partition and offset on a line name no place in the file to restart from).
    */
  def resumePartition: Int = if (line > 0) Outgoing.FileLines else sourcePartition
  def resumeOffset: Long = if (line > 0) line else sourceOffset

  /** `partition`: Some to keep the source's, None for the default partitioner on the key. */
  def toRecord(topic: String, partition: Option[Int], keepTimestamp: Boolean): ProducerRecord[Array[Byte], Array[Byte]] =
    new ProducerRecord[Array[Byte], Array[Byte]](topic, partition.map(Integer.valueOf).orNull,
      (if (keepTimestamp) timestamp.map(java.lang.Long.valueOf) else None).orNull, key, value,
      headers.map { case (k, v) => new RecordHeader(k, v): org.apache.kafka.common.header.Header }.asJava)

  def sameAs(key2: Array[Byte], value2: Array[Byte], headers2: List[(String, Array[Byte])]): Boolean =
    java.util.Arrays.equals(key, key2) && java.util.Arrays.equals(value, value2) &&
      headers.size == headers2.size && headers.zip(headers2).forall { case ((a, x), (b, y)) => a == b && java.util.Arrays.equals(x, y) }
}

private[replay] object Outgoing {
  /** The resume key of a file's lines: no topic has a partition -1. */
  val FileLines: Int = -1
}

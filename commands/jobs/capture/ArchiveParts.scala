package bankops.jobs.capture

import io.circe.Codec
import io.circe.generic.semiauto._

import bankops.services.registry.SchemaReference

/** A schema the records reference, by the id their frames carry, with the subject and version it has there, and the
  * topic whose records carry it (None for a schema only referenced by others). One id met on two topics is two entries.
  */
private[capture] final case class CapturedSchema(id: Int, subject: String, version: Int, schema: String, references: List[SchemaReference],
                                                 topic: Option[String] = None)

/** A group's committed offset on a partition, and its lag (end offset minus committed) when captured. */
private[capture] final case class CapturedOffset(group: String, topic: String, partition: Int, offset: Long, lag: Long)

private[capture] final case class CapturedPartition(partition: Int, leader: Option[Int], replicas: List[Int], isr: List[Int])

/** A topic as the cluster had it: partitions with leader and ISR, replication, and the configs set on it. */
private[capture] final case class CapturedTopic(name: String, partitions: Int, replicationFactor: Int, configs: Map[String, String],
                                                partitionStates: List[CapturedPartition])

private[capture] final case class CapturedCluster(brokers: Int, topics: List[CapturedTopic])

private[capture] object ArchiveParts {
  val ManifestFile = "manifest.json"
  val Schemas = "schemas.json"
  val Groups = "groups.json"
  val Cluster = "cluster.json"
  val TopologyFile = "topology.json"

  /** The records of a topic, as replay's lossless JSON lines: the file's name in messages and in the manifest's counts.
    * Version 3 stores it as [[compressed]], versions 1 and 2 as itself, deflated by the ZIP.
    */
  def records(topic: String): String = s"records/$topic.jsonl"

  /** The entry that holds a file of JSON lines as a zstd frame (archive version 3). */
  def compressed(name: String): String = s"$name.zst"

  /** A zstd stream `open`ed for `doing`: zstd-jni unpacks its native library into java.io.tmpdir at first use, and where
    * it cannot load there the line says what needed it and the way out.
    */
  def zstd[A](doing: String)(open: => A): A =
    try open
    catch {
      case e: LinkageError =>
        throw bankops.base.Failure.Unavailable(s"$doing, and zstd's native library does not load here (${e.getMessage}): " +
          "give the JVM a temporary directory it may load libraries from (BANKOPS_JAVA_OPTS=-Djava.io.tmpdir=DIR)")
    }

  /** An input stream read in blocks (a subclass overrides the block read): its single-byte read is one of them. */
  abstract class BlockInput(in: java.io.InputStream) extends java.io.FilterInputStream(in) {
    final override def read(): Int = {
      val b = new Array[Byte](1)
      if (read(b, 0, 1) < 0) -1 else b(0) & 0xff
    }
  }

  implicit val schemaCodec: Codec.AsObject[CapturedSchema] = deriveCodec
  implicit val offsetCodec: Codec.AsObject[CapturedOffset] = deriveCodec
  implicit val partitionCodec: Codec.AsObject[CapturedPartition] = deriveCodec
  implicit val topicCodec: Codec.AsObject[CapturedTopic] = deriveCodec
  implicit val clusterCodec: Codec.AsObject[CapturedCluster] = deriveCodec
}

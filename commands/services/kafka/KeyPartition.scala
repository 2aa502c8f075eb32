package bankops.services.kafka

import org.apache.kafka.common.utils.Utils

import java.nio.charset.StandardCharsets.UTF_8

/** The partition Kafka's default partitioner gives a keyed record: murmur2 of the key bytes, made positive, modulo the
  * partition count. That is the Java clients' choice; librdkafka's default (consistent_random) hashes with CRC32 instead.
  */
object KeyPartition {
  def of(key: Array[Byte], partitions: Int): Int = Utils.toPositive(Utils.murmur2(key)) % partitions

  /** Keys are UTF-8 text in the bank. */
  def of(key: String, partitions: Int): Int = of(key.getBytes(UTF_8), partitions)
}

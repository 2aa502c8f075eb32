package bankops.services.kafka

import org.apache.kafka.clients.consumer.ConsumerRecord
import org.apache.kafka.common.record.TimestampType

/** A poll of large records is cut into chunks of at most TopicReader.ChunkBytes, in order, none empty. */
class TopicReaderSplitSuite extends munit.FunSuite {
  private def record(offset: Long, bytes: Int) =
    new ConsumerRecord[Array[Byte], Array[Byte]]("t", 0, offset, 0L, TimestampType.CREATE_TIME, 1, bytes, Array[Byte](1), new Array[Byte](bytes),
      new org.apache.kafka.common.header.internals.RecordHeaders(), java.util.Optional.empty[Integer]())

  test("records cut into runs of at most ChunkBytes of keys and values, in order; one larger record alone") {
    val mb = 1024 * 1024
    val records = Array(record(0, mb), record(1, mb - 10), record(2, 100), record(3, 3 * mb), record(4, 10))
    val chunks = TopicReader.split(records)
    assertEquals(chunks.map(_.toList.map(_.offset)), List(List(0L, 1L), List(2L), List(3L), List(4L)))
    assertEquals(TopicReader.split(Array.tabulate(1000)(i => record(i.toLong, 100))).map(_.size), List(1000))
    assertEquals(TopicReader.split(Array.empty), Nil)
  }
}

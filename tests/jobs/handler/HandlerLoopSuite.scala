package bankops.jobs.handler

import org.apache.kafka.common.TopicPartition

class HandlerLoopSuite extends munit.FunSuite {
  test("the partitions a handler holds, as its log says them: sorted per topic, one or several, or none") {
    def tps(ps: (String, Int)*) = ps.map { case (t, p) => new TopicPartition(t, p) }
    assertEquals(HandlerLoop.partitionList(tps("commands" -> 2, "commands" -> 0)), "partitions 0, 2 of commands")
    assertEquals(HandlerLoop.partitionList(tps("commands" -> 1)), "partition 1 of commands")
    assertEquals(HandlerLoop.partitionList(tps("b" -> 0, "a" -> 3)), "partition 3 of a; partition 0 of b")
    assertEquals(HandlerLoop.partitionList(Nil), "no partition")
  }
}

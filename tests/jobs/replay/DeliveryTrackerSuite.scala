package bankops.jobs.replay

import fs2.Chunk
import org.apache.kafka.common.errors.{TimeoutException, TopicAuthorizationException}

import scala.concurrent.duration._

class DeliveryTrackerSuite extends munit.FunSuite {
  private def out(partition: Int, offset: Long) = Outgoing(partition, offset, Array[Byte](1), Array[Byte](2), Nil, None)
  private def chunk(partition: Int, offsets: Long*) = Chunk.from(offsets.map(out(partition, _)))

  test("acknowledgements are counted per target partition; a chunk with one failure counts all its records, resuming at its first offset") {
    val t = new DeliveryTracker(partitions = 2, keepSent = false)
    val (a, b) = (chunk(0, 10, 11, 12), chunk(1, 5, 6))
    List(a, b).foreach(t.reading)
    val sa = t.sending(a)
    sa.answered(0, 0, 100, null); sa.answered(1, 1, 7, null); sa.answered(2, 0, 101, null)
    val sb = t.sending(b)
    sb.answered(0, 1, 8, null); sb.answered(1, 1, 0, new TimeoutException("expired"))
    List(sa, sb).foreach(_.settle())
    val r = t.report(2.seconds, interrupted = false)
    assertEquals((r.read, r.acked, r.failed, r.resumeAt, r.interrupted), (5L, List(2L, 2L), 2L, Map(1 -> 5L), false))
    assertEquals(t.refused, None)
    assertEquals(t.landed, Map.empty[(Int, Long), Outgoing])
  }

  test("interrupted: every source partition read resumes after its last record read, or at its first failure") {
    val t = new DeliveryTracker(partitions = 1, keepSent = false)
    val (a, b, c) = (chunk(0, 1, 2), chunk(3, 40, 41), chunk(3, 42))
    List(a, b, c).foreach(t.reading)
    List(a, b).foreach { ch =>
      val s = t.sending(ch); ch.toList.indices.foreach(i => s.answered(i, 0, i.toLong, null)); s.settle()
    }
    val s = t.sending(c); s.answered(0, 0, 0, new TimeoutException("expired")); s.settle()
    assertEquals(t.report(1.second, interrupted = true).resumeAt, Map(0 -> 3L, 3 -> 42L))
    assertEquals(t.report(1.second, interrupted = false).resumeAt, Map(3 -> 42L))
  }

  test("a file's lines resume at a line, whatever partition and offset the lines carry: the first failed, or after the last read") {
    def line(n: Long) = Outgoing(2, 1000 + n, Array[Byte](1), Array[Byte](2), Nil, None, line = n)
    val (a, b, c) = (Chunk(line(1), line(2)), Chunk(line(4), line(5)), Chunk(line(6)))
    val t = new DeliveryTracker(partitions = 1, keepSent = false)
    List(a, b, c).foreach(t.reading)
    List(a, c).foreach { ch =>
      val s = t.sending(ch); ch.toList.indices.foreach(i => s.answered(i, 0, i.toLong, null)); s.settle()
    }
    val s = t.sending(b); s.answered(0, 0, 9, null); s.answered(1, 0, 0, new TimeoutException("expired")); s.settle()
    val failed = t.report(1.second, interrupted = false)
    assertEquals(failed.resumeAt, Map(Outgoing.FileLines -> 4L))
    assertEquals(failed.resume(Some(os.Path("/tmp/x.jsonl"))),
      Some("resume from line 4 of /tmp/x.jsonl (the lines before it were delivered): tail -n +4 /tmp/x.jsonl > REST, then replay --from-file REST"))
    val stopped = new DeliveryTracker(partitions = 1, keepSent = false)
    List(a, b).foreach(stopped.reading)
    List(a, b).foreach { ch =>
      val s = stopped.sending(ch); ch.toList.indices.foreach(i => s.answered(i, 0, i.toLong, null)); s.settle()
    }
    assertEquals(stopped.report(1.second, interrupted = true).resumeAt, Map(Outgoing.FileLines -> 6L))
  }

  test("the authorizer's refusal is kept (the first one); with --verify each acknowledged record is kept where it landed") {
    val t = new DeliveryTracker(partitions = 3, keepSent = true)
    val a = chunk(0, 7, 8)
    t.reading(a)
    val s = t.sending(a)
    s.answered(0, 2, 30, null)
    val refusal = new TopicAuthorizationException("no WRITE")
    s.answered(1, 0, -1, refusal)
    s.answered(1, 0, -1, new TopicAuthorizationException("a second one"))
    s.settle()
    assertEquals(t.refused, Some(refusal))
    assertEquals(t.landed.keySet, Set((2, 30L)))
    assert(t.landed((2, 30L)) eq a(0))
    assertEquals(t.report(1.second, interrupted = false).failed, 2L)
  }
}

package bankops.jobs.handler

import scala.util.Random
import bankops.support.Seeded

/** The handler's running totals and the status lines made from them: sums of what batches reported, rates and batch
  * phases since the previous report, failures by reason.
  */
class HandlerStatsSuite extends munit.FunSuite with Seeded {
  private val reasons = List("invalid token", "insufficient funds", "from is invalid", "from and to can't be same for transfer")

  private def randomCounts(random: Random): Counts =
    Counts(random.nextInt(5).toLong, random.nextInt(3).toLong, random.nextInt(20).toLong,
      random.shuffle(reasons).take(random.nextInt(3)).map(_ -> (1L + random.nextInt(4))).toMap, random.nextInt(2).toLong, random.nextInt(30).toLong)

  private def randomTimings(random: Random): BatchTimings =
    BatchTimings.of(1 + random.nextInt(50), 0L, 1L + random.nextInt(5000000), 6000000L, 7000000L + random.nextInt(1000000), 9000000L, 9500000L,
      reads = random.nextInt(1000000).toLong, writes = random.nextInt(1000000).toLong)

  test("a snapshot holds the sums of every batch's counts, dead letters and timings so far") {
    (1 to 100).foreach { _ =>
      val stats = new HandlerStats
      val batches = List.fill(random.nextInt(30))((randomCounts(random), randomTimings(random), random.nextInt(4) - 1))
      batches.foreach { case (c, t, dead) => stats.add(c); stats.timed(t); stats.deadLettered(dead) }
      val s = stats.snapshot(lag = 17, nanos = 5)
      val cs = batches.map(_._1)
      assertEquals(s.counts.created, cs.map(_.created).sum)
      assertEquals(s.counts.confirmed, cs.map(_.confirmed).sum)
      assertEquals(s.counts.failed, reasons.map(r => r -> cs.map(_.failed.getOrElse(r, 0L)).sum).filter(_._2 > 0).toMap)
      assertEquals(s.counts.commands, cs.map(c => c.created + c.creationFailed + c.confirmed + c.failed.values.sum + c.repeated).sum)
      assertEquals(s.counts.balanceChanges, cs.map(_.balanceChanges).sum)
      assertEquals(s.deadLettered, batches.map(_._3).filter(_ > 0).sum.toLong, "a batch reporting 0 or fewer dead letters adds none")
      assertEquals((s.timings.batches, s.timings.records), (batches.size.toLong, batches.map(_._2.records).sum))
      assertEquals(s.timings.sends, batches.map(_._2.sends).sum)
      assertEquals((s.lag, s.nanos), (17L, 5L))
    }
  }

  test("totals stay exact while batches are added from several threads") {
    val stats = new HandlerStats
    val threads = List.fill(4)(new Thread(() =>
        (1 to 5000).foreach { _ =>
          stats.add(Counts(confirmed = 1, failed = Map("invalid token" -> 1L))); stats.deadLettered(1); stats.timed(BatchTimings(batches = 1))
        }))
    threads.foreach(_.start()); threads.foreach(_.join())
    val s = stats.snapshot(0, 0)
    assertEquals((s.counts.confirmed, s.counts.failed, s.deadLettered, s.timings.batches), (20000L, Map("invalid token" -> 20000L), 20000L, 20000L))
  }

  test("the rate: commands since the previous report over the time since it; 0 when no time has passed") {
    (1 to 500).foreach { _ =>
      val before = HandlerStatus(Counts(confirmed = random.nextInt(1000).toLong), 0, 0, random.nextInt(1000000000).toLong)
      val more = random.nextInt(5000).toLong
      val nanos = 1L + random.nextInt(10000000)
      val now = before.copy(counts = before.counts.copy(confirmed = before.counts.confirmed + more), nanos = before.nanos + nanos)
      assertEqualsDouble(now.rate(before), more / (nanos / 1e9), 1e-6 * (more / (nanos / 1e9) + 1))
      assertEquals(now.copy(nanos = before.nanos).rate(before), 0.0)
    }
  }

  test("the status line: totals, failures by reason (most first), lag, dead letters, and only the batches since the previous line") {
    val previous = HandlerStatus(Counts(confirmed = 10), 0, 0, 0L, BatchTimings(batches = 2, records = 10, database = 2000000))
    val now = HandlerStatus(Counts(created = 3, creationFailed = 1, confirmed = 40, failed = Map("invalid token" -> 2, "insufficient funds" -> 5),
        repeated = 4,
        balanceChanges = 70), 6, 12, 2000000000L, BatchTimings(batches = 4, records = 30, database = 6000000))
    assertEquals(now.line(previous),
      "55 commands (22.5/s): 3 accounts created, 1 creations failed, 40 transfers confirmed, 7 failed (insufficient funds 5, invalid token 2), " +
        "4 repeated; 70 balance changes; lag 12; 6 dead-lettered; 2 batches of 10.0 records, ms each: database 2.0 (reads 0.0), " +
        "sends 0.0 (writes 0.0), prepare 0.0, Kafka commit 0.0, commit prepared 0.0")
    val quiet = now.copy(timings = previous.timings)
    assert(quiet.line(previous).endsWith("; 6 dead-lettered"), "no batches since the previous line: no batch figures")
    assert(!now.copy(counts = Counts()).line(previous).contains("failed ("), "no failures: no reasons")
  }

  test("JSON: the same figures, failures by reason, the batches since the previous report") {
    val previous = HandlerStatus(Counts(), 0, 0, 0L, BatchTimings(batches = 1, records = 5))
    val now = HandlerStatus(Counts(confirmed = 9, failed = Map("invalid token" -> 1)), 2, 3, 1000000000L, BatchTimings(batches = 3, records = 25))
    val c = now.json(previous).hcursor
    assertEquals(c.get[Long]("commands"), Right(10L))
    assertEquals(c.get[Double]("commandsPerSecond"), Right(10.0))
    assertEquals(c.downField("failed").get[Long]("invalid token"), Right(1L))
    assertEquals((c.get[Long]("deadLettered"), c.get[Long]("lag")), (Right(2L), Right(3L)))
    assertEquals((c.downField("batch").get[Long]("batches"), c.downField("batch").get[Double]("records")), (Right(2L), Right(10.0)))
  }

  test("the slowest batch since the previous snapshot, with its phases; the next snapshot starts anew") {
    val stats = new HandlerStats
    def batch(records: Long, ms: Long*) =
      BatchTimings(1, records, ms(0) * 1000000, ms(1) * 1000000, ms(2) * 1000000, ms(3) * 1000000, ms(4) * 1000000)
    stats.timed(batch(10, 2, 3, 1, 1, 1))
    stats.timed(batch(40, 20, 9, 8, 2, 1))
    stats.timed(batch(12, 3, 3, 3, 1, 1))
    val first = stats.snapshot(0, 1L)
    assertEquals(first.slowest.records, 40L)
    assert(first.line(HandlerStatus(Counts(), 0, 0, 0L)).endsWith(
        "; slowest batch 40.0 ms (40 records: database 20.0, sends 9.0, prepare 8.0, Kafka commit 2.0, commit prepared 1.0)"), first.line(first))
    assertEquals(first.json(first).hcursor.downField("slowestBatch").get[Double]("databaseMs"), Right(20.0))
    stats.timed(batch(5, 1, 1, 1, 1, 1))
    assertEquals(stats.snapshot(0, 2L).slowest.records, 5L, "the slowest of the batches since the previous snapshot only")
    assertEquals(stats.snapshot(0, 3L).slowest.slowestLine, "", "no batch since: no slowest batch")
  }
}

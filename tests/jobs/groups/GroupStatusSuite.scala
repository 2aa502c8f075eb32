package bankops.jobs.groups

import org.apache.kafka.common.TopicPartition

import bankops.services.kafka.{GroupDescription, GroupMember}
import bankops.support.Seeded

/** `groups describe`'s figures from its inputs alone: the group's lag, its lag in time, the age and assignment texts. */
class GroupStatusSuite extends munit.FunSuite with Seeded {
  private def tp(topic: String, p: Int) = new TopicPartition(topic, p)
  private val empty = GroupDescription("g", "Empty", "", Nil)
  private val member = GroupMember("m-1", Some("g-a"), "client-a", "/10.0.0.7", List(tp("commands", 2), tp("balance", 0), tp("commands", 0)))
  private val stable = GroupDescription("g", "Stable", "range", List(member))

  test("lag: per partition the end minus the committed offset (never below 0), the group's the sum over committed partitions") {
    (1 to 500).foreach { _ =>
      val parts = List.tabulate(1 + random.nextInt(6)) { p =>
        val end = random.nextInt(1000).toLong
        // Now and then nothing committed, or committed past the end (a topic recreated under the group).
        val committed = random.nextInt(5) match {
          case 0 => None; case 1 => Some(end + 1 + random.nextInt(10)); case _ => Some(random.nextInt(end.toInt + 1).toLong)
        }
        PartitionLag(tp("t", p), committed, end, None, None)
      }
      val expected = parts.collect { case PartitionLag(_, Some(c), end, _, _) => if (c > end) 0L else end - c }
      val status = GroupStatus(empty, parts)
      assertEquals(status.lag, if (expected.isEmpty) None else Some(expected.sum), parts.toString)
      parts.foreach(p => assert(p.lag.forall(_ >= 0), p.toString))
    }
  }

  test("no committed offset anywhere: the lag is unknown, not 0, in JSON, table and step summary") {
    val s = GroupStatus(empty, List(PartitionLag(tp("t", 0), None, 42, None, None)))
    assertEquals(s.lag, None)
    assert(s.json.hcursor.downField("lag").focus.exists(_.isNull), s.json.noSpaces)
    assert(s.table.linesIterator.next().endsWith("lag -"), s.table)
    assertEquals(s.stepSummary.facts.toMap.get("lag"), Some("-"))
  }

  test("lag in time: the largest of the partitions'; none when no partition has one") {
    val parts = List(PartitionLag(tp("t", 0), Some(1), 5, Some(30), None), PartitionLag(tp("t", 1), Some(1), 5, Some(2500), None),
      PartitionLag(tp("t", 2), Some(5), 5, None, None))
    assertEquals(GroupStatus(empty, parts).lagMillis, Some(2500L))
    assertEquals(GroupStatus(empty, parts.map(_.copy(lagMillis = None))).lagMillis, None)
    assert(GroupStatus(empty, parts).table.linesIterator.next().endsWith("lag 8 (2.5 s)"), GroupStatus(empty, parts).table)
  }

  /** The milliseconds an age text stands for, and how far off its rounding may be. */
  private def parseAge(text: String): (Double, Double) = text.split(' ').toList match {
    case List(n, "ms") => (n.toDouble, 0.5)
    case List(n, "s") => (n.toDouble * 1000, 50)
    case List(m, "min", s, "s") => (m.toDouble * 60000 + s.toDouble * 1000, 1000)
    case List(h, "h", m, "min") => (h.toDouble * 3600000 + m.toDouble * 60000, 60000)
    case _ => fail(s"'$text' is not an age")
  }

  test("age: the unit grows with the age, and the text reads back as the age within its rounding") {
    val samples = List(0L, 1L, 999L, 1000L, 59949L, 60000L, 3599999L, 3600000L, 86400000L * 3) ++
      List.fill(2000)(math.abs(random.nextLong()) % (86400000L * 2))
    samples.foreach { ms =>
      val text = GroupStatus.age(ms)
      val (back, tolerance) = parseAge(text)
      assert(math.abs(back - ms) <= tolerance, s"$ms ms shown as '$text'")
      val unit = if (ms < 1000) "ms" else if (ms < 60000) "s" else if (ms < 3600000) "min" else "h"
      assert(text.split(' ').contains(unit), s"$ms ms shown as '$text'")
    }
    assertEquals(List(12L, 3400L, 302000L, 7500000L).map(GroupStatus.age), List("12 ms", "3.4 s", "5 min 2 s", "2 h 5 min"))
  }

  test("assignment: topics sorted, each with its partitions sorted, whatever the order given") {
    (1 to 200).foreach { _ =>
      val tps = random.shuffle(for {
        t <- List("b", "a", "c").take(1 + random.nextInt(3)); p <- random.shuffle((0 to 9).toList).take(1 + random.nextInt(4))
      } yield tp(t, p))
      val expected = tps.map(_.topic).distinct.sorted.map(t => s"$t-${tps.filter(_.topic == t).map(_.partition).sorted.mkString(",")}").mkString(" ")
      assertEquals(GroupStatus.assignment(tps), expected)
    }
    assertEquals(GroupStatus.assignment(member.assignment), "balance-0 commands-0,2")
  }

  test("JSON: members with their host without the leading slash and their assignment as topic-partition; partitions with lag") {
    val s = GroupStatus(stable, List(PartitionLag(tp("commands", 0), Some(7), 10, Some(15), Some("client-a"))))
    val c = s.json.hcursor
    assertEquals(c.get[String]("state"), Right("Stable"))
    assertEquals(c.get[Long]("lag"), Right(3L))
    assertEquals(c.get[Long]("lagMs"), Right(15L))
    val m = c.downField("members").downArray
    assertEquals(m.get[String]("host"), Right("10.0.0.7"))
    assertEquals(m.get[Option[String]]("instanceId"), Right(Some("g-a")))
    assertEquals(m.get[List[String]]("assignment"), Right(List("commands-2", "balance-0", "commands-0")))
    val p = c.downField("partitions").downArray
    assertEquals((p.get[String]("topic"), p.get[Int]("partition"), p.get[Long]("committed"), p.get[Long]("end"), p.get[Long]("lag")),
      (Right("commands"), Right(0), Right(7L), Right(10L), Right(3L)))
  }

  test("table: the head line, then partitions and members, or a line saying there are none") {
    val busy = GroupStatus(stable, List(PartitionLag(tp("commands", 0), Some(7), 10, Some(61000), Some("client-a")))).table
    assert(busy.startsWith("group g  state Stable  protocol range  members 1  lag 3 (1 min 1 s)"), busy)
    assert(busy.linesIterator.exists(l => l.split("\\s+").toList == List("commands", "0", "7", "10", "3", "1", "min", "1", "s", "client-a")), busy)
    assert(busy.linesIterator.exists(l => l.split("\\s+").toList == List("m-1", "g-a", "client-a", "10.0.0.7", "balance-0", "commands-0,2")), busy)
    val idle = GroupStatus(empty, Nil).table
    assert(idle.contains("protocol -") && idle.contains("(no committed offsets and no assigned partitions)") && idle.contains("(no active members)"),
      idle)
  }
}

package bankops.jobs.replay

import cats.effect.IO

import scala.concurrent.duration._

import bankops.services.kafka.{ReadSpec, StartAt, StopAt, TopicReader}
import bankops.support.{SandboxFixture, TopologyFixture}
import bankops.support.OnSandbox

/** The sandbox broker is stopped and started while a replay runs on it. */
class ReplayRestartSuite extends munit.CatsEffectSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  /** (partition, offset, key) of every record on a topic. */
  private def records(topic: String): IO[List[(Int, Long, String)]] =
    SandboxFixture.settings.flatMap(s =>
      TopicReader.open(s.kafka, ReadSpec(List(topic), None, StartAt.Beginning, StopAt.End), 60.seconds).use {
        case (_, rs) => rs.map(r => (r.partition, r.offset, new String(r.key, "UTF-8"))).compile.toList
      })

  /** Records on a topic so far: its end offsets, summed. */
  private val ResumeAt = """partition (\d+) from offset (\d+)""".r

  // Two outcomes are documented: the producer's retries carry the run through (exact counts), or the run
  // fails naming per source partition the offset to resume from. Kafka's idempotent producer can lose its
  // sequence across a restart (OUT_OF_ORDER_SEQUENCE_NUMBER until the delivery timeout), so both happen here.
  test("a broker restart in the middle of a replay: exact counts, or exit 3 with resume offsets that lose nothing; never a duplicate") {
    val (src, dst) = (TopologyFixture.unique("src"), TopologyFixture.unique("dst"))
    val n = 20000
    for {
      _ <- CommandTopics.apply(src, dst)
      load <- SandboxFixture.cli("heartbeat", "--kind", "commands", "--no-learn", "--commands-topic", src, "--count", n.toString, "--rate", "0")
      _ = assertEquals(load.code, 0, load.err)
      // 1000 records/s: the broker goes down once 2,000 records reached the target (the replay running, ~18 s left)
      // and comes back ~15 s later. In the background: if the restart fails, the replay is cancelled rather than left
      // running into other suites.
      // Alone: it restarts a broker.
      run <- aloneFor("a broker restarted under a replay")(
        SandboxFixture.cli("replay", "--from-topic", src, "--to-topic", dst, "--rate", "1000", "--timeout", "15").background.use { replay =>
          for {
            at <- (IO.sleep(100.millis) >> SandboxFixture.written(dst)).iterateUntil(_ >= 2000).timeout(90.seconds)
            _ <- SandboxFixture.sandbox.restart("kafka-1")
            r <- replay.flatMap(_.embedNever)
          } yield (r, at)
        }.guarantee(SandboxFixture.inSync))
      (r, atRestart) = run
      source <- records(src)
      target <- records(dst)
    } yield {
      // The restart came mid-replay: records written before it, and fewer than all.
      assert(atRestart >= 2000 && atRestart < n, s"$atRestart of $n written at the restart")
      val targetKeys = target.map(_._3)
      assertEquals(targetKeys.distinct.size, targetKeys.size, "a record was written twice")
      assert(targetKeys.toSet.subsetOf(source.map(_._3).toSet))
      if (r.code == 0) {
        assert(r.err.contains(s"$n read, $n acknowledged") && r.err.contains(", 0 failed"), r.err)
        assertEquals(targetKeys.sorted, source.map(_._3).sorted)
      } else {
        assertEquals(r.code, 3, r.err)
        val resume = ResumeAt.findAllMatchIn(r.err.linesIterator.find(_.contains("resume with --from")).getOrElse(fail(r.err))).map(m =>
          m.group(1).toInt -> m.group(2).toLong).toMap
        assert(resume.nonEmpty, r.err)
        // Resuming from those offsets loses nothing: every source record before them is on the target.
        val before = source.filter { case (p, o, _) => resume.get(p).forall(o < _) }.map(_._3)
        assertEquals(before.filterNot(targetKeys.toSet), Nil, r.err)
      }
    }
  }
}

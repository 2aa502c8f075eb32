package bankops.support

import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.{Future, Promise}
import scala.concurrent.duration._

/** The rules that let suites share one sandbox at once (OnSandbox, Leftovers). */
class OnSandboxSuite extends munit.FunSuite {
  override val munitTimeout: Duration = 30.seconds
  private implicit val ec: scala.concurrent.ExecutionContext = scala.concurrent.ExecutionContext.global

  private def until(what: String)(cond: => Boolean): Unit = {
    val deadline = 10.seconds.fromNow
    while (!cond) { assert(deadline.hasTimeLeft(), s"not $what within 10 s"); Thread.sleep(10) }
  }

  test("every suite naming a fixture that reaches the sandbox (the quick tier's pattern in ./bankops) takes its turns") {
    val line = os.read.lines(Repo.root / "bankops").find(_.contains("grep -rLE '")).get
    val pattern = line.substring(line.indexOf("'") + 1, line.lastIndexOf("'")).r.unanchored
    val suites = os.walk(Repo.root / "tests").filter(f => f.last.endsWith("Suite.scala") && !f.startsWith(Repo.root / "tests" / "support"))
    val reaching = suites.filter(f => pattern.matches(os.read(f)))
    assert(reaching.size > 20, reaching)
    assertEquals(reaching.filterNot(f => os.read(f).contains("with OnSandbox")).map(_.relativeTo(Repo.root).toString).toList, Nil)
  }

  test("a test alone waits for a shared one to end, and a shared one queued after it past its patience waits for it") {
    val (shared, alone) = (Promise[Unit](), Promise[Unit]())
    val turns = new OnSandbox.Turns
    val sharedStarted, sharedDone, aloneStarted = new AtomicBoolean(false)
    val first = turns.holding(alone = false) { sharedStarted.set(true); shared.future }
    until("the shared test running")(sharedStarted.get)
    val second = turns.holding(alone = true) { assert(sharedDone.get, "alone while a shared test ran"); aloneStarted.set(true); alone.future }
    until("the test alone waiting")(turns.waiting == 1)
    val third = turns.holding(alone = false)(Future(assert(aloneStarted.get && alone.isCompleted, "shared while a test ran alone")))
    until("the shared test queued behind it")(turns.waiting == 2)
    sharedDone.set(true); shared.success(())
    until("the test alone running")(aloneStarted.get)
    assertEquals(turns.waiting, 1)
    alone.success(())
    Future.sequence(List(first, second, third))
  }

  test("a shared test's alone part gives its turn back, waits for the other shared test to end, holds off a third, and takes its turn again") {
    import cats.effect.IO
    import IOSuite.runtime
    val (other, part) = (Promise[Unit](), Promise[Unit]())
    val turns = new OnSandbox.Turns
    val otherStarted, partStarted, partDone = new AtomicBoolean(false)
    val first = turns.holding(alone = false) { otherStarted.set(true); other.future }
    until("the other shared test running")(otherStarted.get)
    val second = turns.holding(alone = false) {
      turns.alonePart("OnSandboxSuite", "a part")(IO { assert(other.isCompleted, "alone while a shared test ran"); partStarted.set(true) } >>
        IO.fromFuture(IO(part.future)) >> IO(partDone.set(true))).unsafeToFuture()
    }
    until("the part waiting")(turns.waiting == 1)
    val third = turns.holding(alone = false)(Future(assert(partDone.get, "shared while a part ran alone")))
    until("the third queued behind it")(turns.waiting == 2)
    other.success(())
    until("the part running")(partStarted.get)
    part.success(())
    Future.sequence(List(first, second, third)).map(_ => assertEquals(turns.waiting, 0))
  }

  test("a quiet test waits for a test suspended around its part alone: the part and the rest of that test go first") {
    import cats.effect.IO
    import IOSuite.runtime
    val (other, part) = (Promise[Unit](), Promise[Unit]())
    val turns = new OnSandbox.Turns
    val otherStarted, partStarted, suspendedDone, quietStarted = new AtomicBoolean(false)
    val first = turns.holding(alone = false) { otherStarted.set(true); other.future }
    until("the other shared test running")(otherStarted.get)
    val second = turns.holding(alone = false) {
      (turns.alonePart("OnSandboxSuite", "a part")(IO(partStarted.set(true)) >> IO.fromFuture(IO(part.future))) >>
        IO(assert(!quietStarted.get, "the quiet test ran before this one resumed")) >> IO(suspendedDone.set(true))).unsafeToFuture()
    }
    until("the part waiting")(turns.waiting == 1)
    val third =
      turns.holding(alone = true, quiet = true)(Future { assert(suspendedDone.get, "quiet while a test was part-way"); quietStarted.set(true) })
    until("the quiet test queued")(turns.waiting == 2)
    other.success(())
    until("the part running")(partStarted.get)
    part.success(())
    Future.sequence(List(first, second, third)).map(_ => assert(quietStarted.get))
  }

  test("tests alone gather: shared turns asked after one go first within its patience, capped; past it, or once one " +
    "ran alone, those alone go on; a part alone is urgent") {
    import OnSandbox.Turns.{next, Waiter}
    val patience = 30.seconds.toNanos
    def at(s: Int) = s.seconds.toNanos
    val (alone, shared1, shared2) = (new Waiter(true, false, at(0)), new Waiter(false, false, at(1)), new Waiter(false, false, at(2)))
    val part = new Waiter(true, true, at(3))
    def nextAt(now: Int, queue: List[Waiter], shared: Int, lastAlone: Boolean = false, suspended: Int = 0) =
      next(queue, shared, alone = false, lastAlone, suspended, sharedAtOnce = 2, patience, at(now))
    // Within its patience, a whole test alone lets the shared ones asked after it go first, as many as the cap allows.
    assertEquals(nextAt(5, List(alone, shared1, shared2), shared = 1), Some(shared1))
    assertEquals(nextAt(5, List(alone, shared2), shared = 2), None)
    // With no shared one asking, it has its turn once the sandbox is empty.
    assertEquals(nextAt(5, List(alone), shared = 1), None)
    assertEquals(nextAt(5, List(alone), shared = 0), Some(alone))
    // Past its patience, no shared turn is given: it has its turn once the shared ones in flight end.
    assertEquals(nextAt(31, List(alone, shared1), shared = 1), None)
    assertEquals(nextAt(31, List(alone, shared1), shared = 0), Some(alone))
    // A part alone is urgent; and the test alone asked before it goes first, then the part, before any shared turn.
    assertEquals(nextAt(5, List(alone, shared1, part), shared = 1), None)
    assertEquals(nextAt(5, List(alone, shared1, part), shared = 0), Some(alone))
    assertEquals(nextAt(6, List(shared1, part), shared = 0, lastAlone = true), Some(part))
    // Once the alone ones are done, the shared ones go on; nothing is given while a turn alone is held.
    assertEquals(nextAt(7, List(shared1), shared = 0, lastAlone = true), Some(shared1))
    assertEquals(next(List(shared1), 0, alone = true, lastAlone = true, 0, 2, patience, at(7)), None)
    // A quiet one waits while a test is suspended around its part alone: a part goes, the test resuming after its
    // part goes (shared), a fresh shared one does not; none suspended, the quiet one goes.
    val (quiet, resuming) = (new Waiter(true, false, at(0), quiet = true), new Waiter(false, true, at(4), resuming = true))
    assertEquals(nextAt(31, List(quiet, part), shared = 0, suspended = 1), Some(part))
    assertEquals(nextAt(31, List(quiet, shared1, resuming), shared = 0, suspended = 1), Some(resuming))
    assertEquals(nextAt(31, List(quiet, shared1), shared = 0, suspended = 1), None)
    assertEquals(nextAt(31, List(quiet, shared1), shared = 0), Some(quiet))
  }

  test("a shared test asked after a test alone goes first, within the latter's patience; the test alone runs once it ends") {
    val (shared, later) = (Promise[Unit](), Promise[Unit]())
    val turns = new OnSandbox.Turns(sharedAtOnce = 2, patience = 1.hour)
    val firstStarted, laterStarted, laterDone, aloneStarted = new AtomicBoolean(false)
    val first = turns.holding(alone = false) { firstStarted.set(true); shared.future }
    until("the first shared test running")(firstStarted.get)
    val second = turns.holding(alone = true) { assert(laterDone.get, "alone while a shared test ran"); aloneStarted.set(true); Future.unit }
    until("the test alone waiting")(turns.waiting == 1)
    val third = turns.holding(alone = false) { laterStarted.set(true); later.future.map(_ => laterDone.set(true)) }
    until("the shared test asked later running")(laterStarted.get)
    shared.success(())
    later.success(())
    Future.sequence(List(first, second, third)).map(_ => assert(aloneStarted.get))
  }

  test("a test that holds its turn too long is reported with every thread's stack, this one's included") {
    val report = OnSandbox.Stuck.report("SomeSuite: a hung test")
    assert(report.startsWith(s"SomeSuite: a hung test has held its sandbox turn for ${OnSandbox.Stuck.after}"), report.take(200))
    val mine = Thread.currentThread.getName
    assert(report.contains(s""""$mine" RUNNABLE""") && report.contains("bankops.support.OnSandbox$Stuck$.report("), report)
  }

  test("a prefix is removed when the suite that made it ends, not before; one made outside any suite never") {
    val m = new Leftovers.Makers
    m.made("t00000000-nobody", None)
    m.made("t00000001-a", Some("A")); m.made("t00000002-b", Some("B")); m.made("t00000003-a", Some("A"))
    assertEquals(m.end("B"), List("t00000002-b"))
    assertEquals(m.end("A"), List("t00000001-a", "t00000003-a"))
    assertEquals(m.end("A"), Nil)
  }

  test("a prefix is its suite's when made in a field of it or in an IO step it wrote; made here, in no OnSandbox suite, nobody's") {
    val suite = new IOSuite with OnSandbox {
      val field: String = TopologyFixture.unique("field")
      val step: cats.effect.IO[String] = cats.effect.IO.unit.flatMap(_ => cats.effect.IO(TopologyFixture.unique("step")))
    }
    val name = suite.getClass.getName
    import IOSuite.runtime
    val step = suite.step.unsafeRunSync()
    assertEquals(Leftovers.pending(name), List(suite.field, step).sorted)
    val mine = TopologyFixture.unique("mine")
    assertEquals(Leftovers.pending(getClass.getName), Nil, mine)
    Leftovers.end(name)
    assertEquals(Leftovers.pending(name), Nil)
  }

  test("a test prefix is what Leftovers removes; the sandbox's own topics are not") {
    val prefix = TopologyFixture.unique("x")
    assert(s"$prefix-commands".matches(Leftovers.TestTopic), prefix)
    assert(List("commands", "command_feedback", "balance_changed", "heartbeat", "__consumer_offsets").forall(!_.matches(Leftovers.TestTopic)))
    assert(Leftovers.database(prefix).matches("t[0-9a-f]{8}_x"), Leftovers.database(prefix))
  }
}

package bankops.support

import cats.effect.IO
import munit.Tag

import java.util.concurrent.{Executors, TimeUnit}
import scala.concurrent.{ExecutionContext, Future}
import scala.concurrent.duration._

/** A suite whose tests reach the shared test sandbox. `./bankops test` runs suites as many at once as the JVM has
  * processors (build.sbt's testForkedParallel): each test holds the sandbox shared, or alone when tagged
  * [[OnSandbox.Alone]] or when the whole suite is [[alone]], so a test that stops a broker, or reads the sandbox's own
  * bank, never overlaps another. When the suite ends, the topics and databases its tests made are removed ([[Leftovers]]).
  */
trait OnSandbox extends munit.FunSuite {
  /** Every test of this suite runs alone on the sandbox. */
  def alone: Boolean = false

  /** Every test of this suite runs alone, and only while no other test is part-way: suspended in [[aloneFor]], its
    * handlers running, or about to go on after it. For a suite that changes what such a test holds: AccessDeploySuite's
    * `--delete-unlisted --yes` deletes the ACLs of every test bank, and a test waiting for its part alone lost its
    * handler to it (run 35: "not authorized to READ topic …-dlq-commands").
    */
  def quiet: Boolean = false

  override def munitTestTransforms: List[TestTransform] = super.munitTestTransforms :+ new TestTransform("sandbox turn",
    test =>
      test.withBody { () =>
        val alone = this.alone || this.quiet || test.tags.contains(OnSandbox.Alone)
        val asked = System.currentTimeMillis()
        @volatile var had = 0L
        OnSandbox.turns.holding(alone, quiet) {
          had = System.currentTimeMillis(); OnSandbox.Stuck.watching(s"${getClass.getName}: ${test.name}")(test.body())
        }
          .andThen { case _ => OnSandbox.Timeline.record(getClass.getName, test.name, alone, asked, had) }(ExecutionContext.parasitic)
      })

  /** `io` with the sandbox to itself, from inside a test that holds it shared: the part of a test that stops a service
    * or times something, while its set-up (topics, a database, handler processes starting) and its checks afterwards
    * share the sandbox with other tests. The shared turn is given back while the part waits and runs, and taken again
    * after, so two tests doing this never wait on each other. `why` names what needs the sandbox alone; the timeline
    * records the part under it.
    */
  def aloneFor[A](why: String)(io: IO[A]): IO[A] = OnSandbox.turns.alonePart(getClass.getName, why)(io)

  // Removing topics while a test runs alone could upset what it asserts of the whole cluster.
  override def afterAll(): Unit = try OnSandbox.turns.during(alone = false)(Leftovers.end(getClass.getName))
  finally super.afterAll()
}

object OnSandbox {
  /** A test that must have the sandbox to itself: it stops or restarts a service, uses the sandbox's own bank, asserts
    * something of the whole cluster, or times something another test's load would upset.
    */
  val Alone = new Tag("alone")

  /** A test that holds its turn far longer than any does (a minute or two) is hung, and every test alone waits for it
    * until its timeout: the test JVM's threads are printed once, so the run's log shows where it hangs. Two hangs of a
    * Kafka client, ten minutes each, had left nothing to go on.
    */
  private[support] object Stuck {
    val after: FiniteDuration = 4.minutes

    private val timer = Executors.newSingleThreadScheduledExecutor { r =>
      val t = new Thread(r, "sandbox-turn-watch")
      t.setDaemon(true)
      t
    }

    /** `body`, its threads reported if it has not completed `after` it started. */
    def watching(test: String)(body: => Future[Any]): Future[Any] = {
      val watch = timer.schedule((() => System.err.println(report(test))): Runnable, after.toMillis, TimeUnit.MILLISECONDS)
      val started = try body
      catch { case e: Throwable => watch.cancel(false); throw e }
      started.transform { r => watch.cancel(false); r }(ExecutionContext.parasitic)
    }

    def report(test: String): String = {
      import scala.jdk.CollectionConverters._
      val threads = Thread.getAllStackTraces.asScala.toList.sortBy(_._1.getName).map { case (t, frames) =>
        (s""""${t.getName}" ${t.getState}""" :: frames.take(40).map(f => s"    at $f").toList).mkString("\n")
      }
      (s"$test has held its sandbox turn for $after: the test JVM's threads" :: threads).mkString("\n")
    }
  }

  /** `BANKOPS_TEST_TIMELINE=FILE`: a line per test, tab-separated: its suite, name, whether alone, and when (epoch ms)
    * it asked for its turn, had it and gave it back. Read by tests/bench/test-timeline.py.
    */
  private object Timeline {
    private val file = sys.env.get("BANKOPS_TEST_TIMELINE").filter(_.nonEmpty).map(os.Path(_, os.pwd))

    def record(suite: String, test: String, alone: Boolean, asked: Long, had: Long): Unit =
      file.foreach(f =>
        synchronized(os.write.append(f,
            List(suite, test.replaceAll("\\s", " "), alone, asked, had, System.currentTimeMillis()).mkString("", "\t", "\n"))))
  }

  /** The test JVM's turns on its sandbox: shared by as many tests at once as build.sbt's test grouping says
    * (`bankops.test.shared`: the suites it ran at once before some of them could wait alone), tests alone gathered for
    * up to a minute.
    */
  val turns = new Turns(recorded = true, sharedAtOnce = sys.props.get("bankops.test.shared").flatMap(_.toIntOption).getOrElse(Int.MaxValue),
    patience = 60.seconds)

  /** Turns on one sandbox: shared, at most `sharedAtOnce` at a time, or alone; `recorded`: its alone parts go to the
    * run's timeline (the test JVM's own).
    *
    * A turn alone waits until no shared turn is held, and each wait empties the sandbox of the tests in flight, some
    * of them a minute long. A whole test alone holds nothing while it waits, so the shared turns asked for after it
    * still go first for up to `patience`: meanwhile other tests alone gather, and once one has its turn, those
    * waiting have theirs one after another, so a wait is paid once for all of them. A part alone ([[alonePart]],
    * [[io]] unless told otherwise) is urgent: its test's handlers and followers are running, so no shared turn is given
    * from the moment it asks.
    */
  final class Turns(recorded: Boolean = false, sharedAtOnce: Int = Int.MaxValue, patience: FiniteDuration = Duration.Zero) {
    private val queue = scala.collection.mutable.ArrayBuffer.empty[Turns.Waiter]
    private var shared = 0
    private var alone = false
    private var lastAlone = false
    /** Tests that gave their shared turn back for a part alone and have not taken it again. */
    private var suspended = 0

    /** How many tests wait for their turn now. */
    def waiting: Int = synchronized(queue.size)

    /** Waits for the turn, on this thread; [[give]] gives it back. `urgent`, `quiet`, `resuming`: see [[Turns.Waiter]]. */
    def take(alone: Boolean, urgent: Boolean = true, quiet: Boolean = false, resuming: Boolean = false): Unit = synchronized {
      val me = new Turns.Waiter(alone, urgent, System.nanoTime(), quiet, resuming)
      queue += me
      try
        while (!Turns.next(queue.toList, shared, this.alone, lastAlone, suspended, sharedAtOnce, patience.toNanos, System.nanoTime()).contains(me))
          wait(100) // also to see a wait outlast `patience`
      finally {
        queue -= me
        if (resuming) suspended -= 1
        notifyAll()
      }
      if (alone) this.alone = true else shared += 1
      lastAlone = alone
    }

    def give(alone: Boolean): Unit = synchronized {
      if (alone) this.alone = false else shared -= 1
      notifyAll()
    }

    /** `body` run once the turn is had, on this thread (never one of the IO runtime's). */
    def during[A](alone: Boolean)(body: => A): A = {
      take(alone)
      try body
      finally give(alone)
    }

    /** `io` run in a turn: for a suite's fixture, which runs outside its tests' turns (`urgent` unless it holds
      * nothing while it waits).
      */
    def io[A](alone: Boolean, urgent: Boolean = true)(io: cats.effect.IO[A]): cats.effect.IO[A] =
      cats.effect.IO.interruptible(take(alone, urgent)).bracket(_ => io)(_ => cats.effect.IO(give(alone)))

    /** [[OnSandbox.aloneFor]]: `io` alone, from a shared turn given back meanwhile and taken again after. */
    def alonePart[A](suite: String, why: String)(io: IO[A]): IO[A] =
      IO(synchronized { suspended += 1; give(alone = false) }) >> IO.realTime.flatMap { asked =>
        this.io(alone = true)(IO.realTime.flatMap(had =>
            io.guarantee(IO.whenA(recorded)(IO(Timeline.record(suite, s"[alone] $why", alone = true, asked.toMillis, had.toMillis))))))
      }.guarantee(IO.interruptible(take(alone = false, resuming = true)))

    /** A whole test's `body` started once the turn is had; the turn given back when it completes. */
    def holding(alone: Boolean, quiet: Boolean = false)(body: => Future[Any]): Future[Any] =
      Future(take(alone, urgent = false, quiet = quiet))(waitingThreads).flatMap { _ =>
        val started = try body
        catch { case e: Throwable => give(alone); throw e }
        started.transform { r => give(alone); r }(ExecutionContext.parasitic)
      }(waitingThreads)
  }

  object Turns {
    /** One asking for a turn (compared by identity), since `since` (System.nanoTime). `quiet`: alone only once no test
      * is suspended ([[OnSandbox.quiet]]); `resuming`: a test taking its shared turn back after its part alone.
      */
    final class Waiter(val alone: Boolean, val urgent: Boolean, val since: Long, val quiet: Boolean = false, val resuming: Boolean = false)

    /** Who has the turn next, if anyone may now: `queue` in the order they asked; `shared` turns and `alone` held;
      * `lastAlone`, whether the last turn given was alone (those alone waiting go on after it); `suspended`, tests
      * between their shared turns around a part alone. While a quiet one waits for those, the tests resuming go on.
      */
    def next(queue: List[Waiter], shared: Int, alone: Boolean, lastAlone: Boolean, suspended: Int, sharedAtOnce: Int, patience: Long,
             now: Long): Option[Waiter] = {
      val (alones, shareds) = queue.partition(_.alone)
      val pressing = lastAlone || alones.exists(w => w.urgent || now - w.since >= patience)
      val eligible = alones.filter(w => !w.quiet || suspended == 0)
      if (alone) None
      else if (alones.nonEmpty && (pressing || shareds.isEmpty))
        if (eligible.nonEmpty) eligible.headOption.filter(_ => shared == 0)
        else shareds.find(_.resuming).filter(_ => shared < sharedAtOnce)
      else shareds.headOption.filter(_ => shared < sharedAtOnce)
    }
  }

  // Waiting for a turn blocks a thread of its own, never the test runner's or the IO runtime's.
  private val waitingThreads = ExecutionContext.fromExecutorService(Executors.newCachedThreadPool { r =>
    val t = new Thread(r, "sandbox-turn")
    t.setDaemon(true)
    t
  })
}

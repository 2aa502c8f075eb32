package bankops.support

import cats.effect.IO
import munit.Tag

import java.util.concurrent.{Executors, Semaphore}
import scala.concurrent.{ExecutionContext, Future}

/** A suite whose tests reach the shared test sandbox. `./bankops test` runs suites as many at once as the JVM has
  * processors (build.sbt's testForkedParallel): each test holds the sandbox shared, or alone when tagged
  * [[OnSandbox.Alone]] or when the whole suite is [[alone]], so a test that stops a broker, or reads the sandbox's own
  * bank, never overlaps another. When the suite ends, the topics and databases its tests made are removed ([[Leftovers]]).
  */
trait OnSandbox extends munit.FunSuite {
  /** Every test of this suite runs alone on the sandbox. */
  def alone: Boolean = false

  override def munitTestTransforms: List[TestTransform] = super.munitTestTransforms :+ new TestTransform("sandbox turn",
    test =>
      test.withBody { () =>
        val alone = this.alone || test.tags.contains(OnSandbox.Alone)
        val asked = System.currentTimeMillis()
        @volatile var had = 0L
        OnSandbox.turns.holding(alone) { had = System.currentTimeMillis(); test.body() }
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

  /** `BANKOPS_TEST_TIMELINE=FILE`: a line per test, tab-separated: its suite, name, whether alone, and when (epoch ms)
    * it asked for its turn, had it and gave it back. What project/TestShards.scala's seconds are measured from.
    */
  private object Timeline {
    private val file = sys.env.get("BANKOPS_TEST_TIMELINE").filter(_.nonEmpty).map(os.Path(_, os.pwd))

    def record(suite: String, test: String, alone: Boolean, asked: Long, had: Long): Unit =
      file.foreach(f =>
        synchronized(os.write.append(f,
            List(suite, test.replaceAll("\\s", " "), alone, asked, had, System.currentTimeMillis()).mkString("", "\t", "\n"))))
  }

  /** The test JVM's turns on its sandbox. */
  val turns = new Turns(recorded = true)

  /** Turns on one sandbox: shared, or alone; `recorded`: its alone parts go to the run's timeline (the test JVM's own). */
  final class Turns(recorded: Boolean = false) {
    // More permits than test threads: a shared turn takes one, a turn alone takes them all. Fair, so a test waiting to
    // run alone is not starved by the shared ones queued after it.
    private val Permits = 64
    private val semaphore = new Semaphore(Permits, true)

    /** How many tests wait for their turn now. */
    def waiting: Int = semaphore.getQueueLength

    /** Waits for the turn, on this thread; [[give]] gives it back. */
    def take(alone: Boolean): Unit = semaphore.acquire(permits(alone))

    def give(alone: Boolean): Unit = semaphore.release(permits(alone))

    /** `body` run once the turn is had, on this thread (never one of the IO runtime's). */
    def during[A](alone: Boolean)(body: => A): A = {
      take(alone)
      try body
      finally give(alone)
    }

    /** `io` run in a turn: for a suite's fixture, which runs outside its tests' turns. */
    def io[A](alone: Boolean)(io: cats.effect.IO[A]): cats.effect.IO[A] =
      cats.effect.IO.interruptible(take(alone)).bracket(_ => io)(_ => cats.effect.IO(give(alone)))

    private def permits(alone: Boolean) = if (alone) Permits else 1

    /** [[OnSandbox.aloneFor]]: `io` alone, from a shared turn given back meanwhile and taken again after. */
    def alonePart[A](suite: String, why: String)(io: IO[A]): IO[A] =
      IO(give(alone = false)) >> IO.realTime.flatMap { asked =>
        this.io(alone = true)(IO.realTime.flatMap(had =>
            io.guarantee(IO.whenA(recorded)(IO(Timeline.record(suite, s"[alone] $why", alone = true, asked.toMillis, had.toMillis))))))
      }.guarantee(IO.interruptible(take(alone = false)))

    /** `body` started once the turn is had; the turn given back when it completes. */
    def holding(alone: Boolean)(body: => Future[Any]): Future[Any] =
      Future(take(alone))(waitingThreads).flatMap { _ =>
        val started = try body
        catch { case e: Throwable => give(alone); throw e }
        started.transform { r => give(alone); r }(ExecutionContext.parasitic)
      }(waitingThreads)
  }

  // Waiting for a turn blocks a thread of its own, never the test runner's or the IO runtime's.
  private val waitingThreads = ExecutionContext.fromExecutorService(Executors.newCachedThreadPool { r =>
    val t = new Thread(r, "sandbox-turn")
    t.setDaemon(true)
    t
  })
}

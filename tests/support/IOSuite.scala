package bankops.support

import cats.effect.unsafe.{IORuntime, IORuntimeConfig}

import bankops.base.ForkJoinRuntime

/** The tests' cats-effect suite: its IOs run on the program's kind of runtime, a fork-join pool.
  *
  * On cats-effect's own pool, the test JVM's workers spun: 45% of its CPU samples (async-profiler, 480 s of a whole
  * run, 2026-11-30) were `WorkerThread.parkLoop` and `parkLoopUntilNextSleeper`, its workers polling for the tests' many
  * 100 to 500 ms sleeps. And twice that day tests hung with their fibers asleep past every deadline and no thread
  * working for them, which that pool's timers, kept per worker, could explain: here sleeps are a scheduler thread's.
  */
abstract class IOSuite extends munit.CatsEffectSuite {
  override implicit def munitIORuntime: IORuntime = IOSuite.runtime
}

object IOSuite {
  /** One for the test JVM, as many threads as it is told it has processors (build.sbt: its suites at once); the
    * fixtures that run an IO outside a test use it too (`import IOSuite.runtime`).
    */
  implicit lazy val runtime: IORuntime = ForkJoinRuntime(java.lang.Runtime.getRuntime.availableProcessors(), IORuntimeConfig())
}

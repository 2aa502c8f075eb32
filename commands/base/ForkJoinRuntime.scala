package bankops.base

import cats.effect.unsafe.{IORuntime, IORuntimeConfig}

import java.util.concurrent.ForkJoinPool
import scala.concurrent.ExecutionContext

/** A cats-effect runtime whose compute threads are a fork-join pool, not cats-effect 3.6's own: that pool has a woken
  * worker spin until its waker is done (`WorkerThread.parkLoop`), and on two cores shared with the brokers the waker is
  * often descheduled; a fork-join pool's idle workers park instead. Sleeps go to a scheduler thread of their own.
  */
object ForkJoinRuntime {
  def apply(threads: Int, config: IORuntimeConfig): IORuntime = {
    val pool = new ForkJoinPool(threads)
    IORuntime.builder().setCompute(ExecutionContext.fromExecutor(pool), () => pool.shutdown()).setConfig(config).build()
  }
}

package bankops

import cats.effect.{ExitCode, IO, IOApp}
import cats.effect.unsafe.{IORuntime, IORuntimeConfig}

import java.util.concurrent.ForkJoinPool
import scala.concurrent.ExecutionContext
import scala.concurrent.duration.Duration

import bankops.base.{Cli, Logging, Shell, StartInterrupt}

/** The program. Its compute threads are a fork-join pool, not cats-effect 3.6's own: that pool has a woken worker
  * spin until its waker is done (`WorkerThread.parkLoop`), and on two cores shared with the brokers the waker is often
  * descheduled. In async-profiler's samples the spinning was 17 to 47% of a data job's CPU and about 10% of the
  * handler's; a fork-join pool's workers park instead. `capture show --records` of 30,000 values of 4 KiB took 8.7-9.5 s
  * (11.4-11.9 CPU-s) before, 4.4-4.7 s (5.7-6.0) after; the sandbox's handler under 1,000 commands/s took about 11% less
  * CPU with the same feedback latency (docs/performance.md, 2026-11-30).
  */
object Main extends IOApp {

  // First, as the program starts: Ctrl-C from here on says what it interrupted.
  StartInterrupt.install()

  // A 2-core machine busy with a broker trips cats-effect's starvation warning; it is noise to an operator.
  override protected def runtimeConfig: IORuntimeConfig =
    super.runtimeConfig.copy(cpuStarvationCheckInitialDelay = Duration.Inf)

  override protected def runtime: IORuntime = forkJoin

  lazy val forkJoin: IORuntime = {
    val pool = new ForkJoinPool(Runtime.getRuntime.availableProcessors())
    IORuntime.builder().setCompute(ExecutionContext.fromExecutor(pool), () => pool.shutdown()).setConfig(runtimeConfig).build()
  }

  def run(args: List[String]): IO[ExitCode] = {
    StartInterrupt.holdIfAsked(sys.env)
    val verbose = args.contains("--verbose")
    Logging.configure(verbose)
    Cli.run(args, Shell.system(sys.env, verbose), Jobs.all)
  }
}

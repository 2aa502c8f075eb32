package bankops

import cats.effect.{ExitCode, IO, IOApp}
import cats.effect.unsafe.{IORuntime, IORuntimeConfig, PollingSystem, SleepSystem}

import java.util.concurrent.ForkJoinPool
import scala.concurrent.ExecutionContext
import scala.concurrent.duration.Duration

import bankops.base.{Cli, JvmOptions, Logging, Shell, StartInterrupt}

/** The program: the jobs that move records run on a runtime of their own ([[DataJobsApp]]), every other on
  * cats-effect's default ([[JobsApp]]).
  */
object Main {

  // First, as the program starts: Ctrl-C from here on says what it interrupted.
  StartInterrupt.install()

  def main(args: Array[String]): Unit = (if (dataJob(args.toList)) DataJobsApp else JobsApp).main(args)

  /** A job the launcher gives the data jobs' heap (JvmOptions.DataJobNames) runs on [[DataJobsApp]]'s runtime. */
  def dataJob(args: List[String]): Boolean = args.headOption.exists(JvmOptions.DataJobNames.contains)

  def run(args: List[String]): IO[ExitCode] = {
    StartInterrupt.holdIfAsked(sys.env)
    val verbose = args.contains("--verbose")
    Logging.configure(verbose)
    Cli.run(args, Shell.system(sys.env, verbose), Jobs.all)
  }
}

private[bankops] sealed abstract class BankopsApp extends IOApp {

  // A 2-core machine busy with a broker trips cats-effect's starvation warning; it is noise to an operator.
  override protected def runtimeConfig: IORuntimeConfig =
    super.runtimeConfig.copy(cpuStarvationCheckInitialDelay = Duration.Inf)

  // Nothing here does non-blocking I/O through cats-effect (the Kafka clients have their own threads), and
  // CE 3.6's default selector-based parking costs CPU on every wake-up (cats-effect#4328) that a 2-core
  // machine shares with the broker: plain parking instead.
  override protected def pollingSystem: PollingSystem = SleepSystem

  def run(args: List[String]): IO[ExitCode] = Main.run(args)
}

private[bankops] object JobsApp extends BankopsApp

/** The data jobs' compute threads are a fork-join pool. Their streams hand chunks between fibers and blocking reads
  * all the time, and cats-effect 3.6's own pool has a woken worker spin until its waker is done (`parkLoop`): 17 to 47%
  * of a data job's CPU in async-profiler's samples, on cores the brokers share. A fork-join pool's workers park
  * instead: `capture show --records` of 30,000 values of 4 KiB took 8.7-9.5 s (11.4-11.9 CPU-s) before, 4.4-4.7 s
  * (5.7-6.0) after; `replay --from-file --dry-run` of 1,000,000 lines 9.6-10.5 s before, 7.8-8.3 after.
  */
private[bankops] object DataJobsApp extends BankopsApp {
  override protected def runtime: IORuntime = forkJoin

  lazy val forkJoin: IORuntime = {
    val pool = new ForkJoinPool(Runtime.getRuntime.availableProcessors())
    IORuntime.builder().setCompute(ExecutionContext.fromExecutor(pool), () => pool.shutdown()).setConfig(runtimeConfig).build()
  }
}

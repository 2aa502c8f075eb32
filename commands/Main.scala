package bankops

import cats.effect.{ExitCode, IO, IOApp}
import cats.effect.unsafe.{IORuntime, IORuntimeConfig}

import scala.concurrent.duration.Duration

import bankops.base.{Cli, ForkJoinRuntime, Logging, Shell, StartInterrupt}

/** The program, on a [[ForkJoinRuntime]]. In async-profiler's samples, the spinning of cats-effect's own pool was 17
  * to 47% of a data job's CPU and about 10% of the handler's. `capture show --records` of 30,000 values of 4 KiB took 8.7-9.5 s
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

  lazy val forkJoin: IORuntime = ForkJoinRuntime(Runtime.getRuntime.availableProcessors(), runtimeConfig)

  def run(args: List[String]): IO[ExitCode] = {
    StartInterrupt.holdIfAsked(sys.env)
    val verbose = args.contains("--verbose")
    Logging.configure(verbose)
    Cli.run(args, Shell.system(sys.env, verbose), Jobs.all)
  }
}

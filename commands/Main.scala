package bankops

import cats.effect.{ExitCode, IO, IOApp}
import cats.effect.unsafe.{IORuntimeConfig, PollingSystem, SleepSystem}

import scala.concurrent.duration.Duration

import bankops.base.{Cli, Logging, Shell, StartInterrupt}

object Main extends IOApp {

  // First, as the program starts: Ctrl-C from here on says what it interrupted.
  StartInterrupt.install()

  // A 2-core machine busy with a broker trips cats-effect's starvation warning; it is noise to an operator.
  override protected def runtimeConfig: IORuntimeConfig =
    super.runtimeConfig.copy(cpuStarvationCheckInitialDelay = Duration.Inf)

  // Nothing here does non-blocking I/O through cats-effect (the Kafka clients have their own threads), and
  // CE 3.6's default selector-based parking costs CPU on every wake-up (cats-effect#4328) that a 2-core
  // machine shares with the broker: plain parking instead.
  override protected def pollingSystem: PollingSystem = SleepSystem

  def run(args: List[String]): IO[ExitCode] = {
    StartInterrupt.holdIfAsked(sys.env)
    val verbose = args.contains("--verbose")
    Logging.configure(verbose)
    Cli.run(args, Shell.system(sys.env, verbose), Jobs.all)
  }
}

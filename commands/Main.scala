package bankops

import cats.effect.{ExitCode, IO, IOApp}
import cats.effect.unsafe.IORuntimeConfig

import scala.concurrent.duration.Duration

import bankops.cli.{Cli, Logging, Shell}

object Main extends IOApp {

  // A 2-core machine busy with a broker trips cats-effect's starvation warning; it is noise to an operator.
  override protected def runtimeConfig: IORuntimeConfig =
    super.runtimeConfig.copy(cpuStarvationCheckInitialDelay = Duration.Inf)

  def run(args: List[String]): IO[ExitCode] = {
    val verbose = args.contains("--verbose")
    Logging.configure(verbose)
    Cli.run(args, Shell.system(sys.env, verbose))
  }
}

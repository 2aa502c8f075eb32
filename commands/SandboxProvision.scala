package bankops

import cats.effect.IO

import bankops.base.{Failure, OutputFormat, Shell}
import bankops.services.config.ConnectionFlags
import bankops.services.contracts.TopologyChoice
import bankops.services.plan.SchemaFlow
import bankops.jobs.deploy.DeployCommand
import bankops.jobs.sandbox.{Sandbox, SandboxSecrets}

import scala.concurrent.duration._

/** What `sandbox up` does once its services answer: `apply` of the checkout's topology on the sandbox, so the bank's
  * topics and subjects are there before the handler starts. Here, in the top layer, because it runs one job from another.
  */
object SandboxProvision {
  val applyTopology: Sandbox.Provision = (layout, settings, shell) => {
    // A cluster of fewer than three brokers takes the topology's declared environment for it, named in the line `up` prints.
    val choice = TopologyChoice(None, settings.topologyEnvironment)
    val common =
      SchemaFlow.Common(ConnectionFlags(sandboxDir = Some(layout.dir), useContexts = false), choice, None, Some(OutputFormat.Json), 30.seconds)
    val environment = choice.environment.fold("")(e => s" (environment $e)")
    // Provisioning, not an apply the operator asked for: its plan stays out of the output and of a GitHub job summary.
    def failed(why: String) = IO.raiseError[String](Failure.Unavailable(s"applying the bank's topology failed: $why"))
    // The sandbox's own settings alone: a variable of the operator's shell (KAFKA_BROKERS of another cluster) never wins.
    // The SCRAM users' passwords are the sandbox's own, in the variables the topology's users name.
    SandboxSecrets.load(layout).map(_.fold(Map.empty[String, String])(_.scramVariables)).flatMap { scram =>
      val env = shell.env -- ConnectionFlags.Variables - TopologyChoice.EnvironmentVariable ++ scram
      Shell.captured(shell.copy(env = env))(DeployCommand.applyAll(common, None, _)).attempt
    }.flatMap {
      case Right(Shell.Captured(report, _)) if report.verdict.code.code == 0 =>
        IO.pure(if (report.changed) s"applied schemas/topology.json$environment: ${report.headline}"
          else s"in place$environment: the bank's topics, access and subjects")
      case Right(Shell.Captured(report, _)) => failed(report.verdict.lines.mkString("; "))
      case Left(f: Failure) => failed(f.message)
      case Left(e) => IO.raiseError(e)
    }
  }
}

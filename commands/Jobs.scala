package bankops

import bankops.base.Job
import bankops.jobs.balances.BalancesCommand
import bankops.jobs.capture.{CaptureCommand, RestoreCommand}
import bankops.jobs.completion.CompletionCommand
import bankops.jobs.config.ConfigCommand
import bankops.jobs.context.ContextCommand
import bankops.jobs.deploy.DeployCommand
import bankops.jobs.handler.HandlerCommand
import bankops.jobs.doctor.DoctorCommand
import bankops.jobs.groups.GroupsCommand
import bankops.jobs.heartbeat.HeartbeatCommand
import bankops.jobs.inspect.InspectCommand
import bankops.jobs.latency.LatencyCommand
import bankops.jobs.produce.ProduceCommand
import bankops.jobs.reference.ReferenceCommand
import bankops.jobs.replay.ReplayCommand
import bankops.jobs.sandbox.SandboxCommand
import bankops.jobs.schemas.SchemasCommand
import bankops.jobs.topics.TopicsCommand

/** Every job the CLI offers; a job is listed here only once it works. */
object Jobs {
  lazy val all: List[Job[_, _]] = List(
    ConfigCommand.job,
    ContextCommand.job,
    SandboxCommand.job(SandboxProvision.applyTopology),
    DoctorCommand.job,
    TopicsCommand.job,
    SchemasCommand.job,
    DeployCommand.plan,
    DeployCommand.apply,
    InspectCommand.job,
    ProduceCommand.job,
    HeartbeatCommand.job,
    BalancesCommand.job,
    ReplayCommand.job,
    CaptureCommand.job,
    RestoreCommand.job,
    HandlerCommand.job,
    GroupsCommand.job,
    LatencyCommand.job,
    Demo.job,
    CompletionCommand.job(() => all),
    ReferenceCommand.job(() => all)
  )
}

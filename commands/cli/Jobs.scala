package bankops.cli

/** Every job the CLI offers; a job is listed here only once it works. */
object Jobs {
  val all: List[Job] = List(
    bankops.config.ConfigCommand.job,
    bankops.sandbox.SandboxCommand.job,
    bankops.doctor.DoctorCommand.job,
    bankops.topics.TopicsCommand.job,
    bankops.schema.SchemasCommand.job,
    bankops.deploy.DeployCommand.plan,
    bankops.deploy.DeployCommand.apply,
    bankops.inspect.InspectCommand.job,
    bankops.heartbeat.HeartbeatCommand.job,
    bankops.balances.BalancesCommand.job,
    bankops.replay.ReplayCommand.job,
    bankops.handler.HandlerCommand.job
  )
}

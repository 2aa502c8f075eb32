package bankops.services.config

import cats.effect.IO

import bankops.base.Shell

/** Builds the effective [[ConnectionSettings]] of a run: the one place that reads
  * the environment, the sandbox's state and the command-config file.
  */
object Connections {

  def sandboxDir(flag: Option[os.Path], shell: Shell): os.Path =
    flag
      .orElse(shell.env.get("BANKOPS_SANDBOX_DIR").filter(_.nonEmpty).map(os.Path(_, os.pwd)))
      .getOrElse(shell.home / ".bankops" / "sandbox")

  def load(flags: ConnectionFlags, shell: Shell): IO[ConnectionSettings] =
    for {
      sandbox <- SandboxConnection.read(sandboxDir(flags.sandboxDir, shell))
      settings = ConnectionSettings.resolve(flags, shell.env, sandbox)
      props <- settings.kafka.commandConfig.fold(IO.pure(Map.empty[String, String]))(c => ClientProperties.load(c.value))
    } yield ConnectionSettings.withProperties(settings, props)
}

package bankops.services.config

import cats.effect.IO

import bankops.base.{Failure, Shell}

/** Builds the effective [[ConnectionSettings]] of a run: the one place that reads
  * the environment, the sandbox's state and the command-config file.
  */
object Connections {

  def sandboxDir(flag: Option[os.Path], shell: Shell): os.Path =
    flag
      .orElse(shell.env.get("BANKOPS_SANDBOX_DIR").filter(_.nonEmpty).map(os.Path(_, os.pwd)))
      .getOrElse(shell.home / ".bankops" / "sandbox")

  /** The settings, their Kafka part checked ([[KafkaCheck]]): a bad value is exit 2 naming it before any client is made.
    * `checked = false` for the jobs that report on settings rather than use them (`config show`, `doctor`).
    */
  def load(flags: ConnectionFlags, shell: Shell, checked: Boolean = true): IO[ConnectionSettings] =
    for {
      sandbox <- SandboxConnection.read(sandboxDir(flags.sandboxDir, shell))
      settings = ConnectionSettings.resolve(flags, shell.env, sandbox)
      props <- settings.kafka.commandConfig.fold(IO.pure(Map.empty[String, String]))(c => ClientProperties.load(c.value))
      loaded = ConnectionSettings.withProperties(settings, props)
      _ <- IO(Secrets.remember(loaded))
      _ <- if (checked) IO.blocking(KafkaCheck(loaded.kafka)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_)))) else IO.unit
    } yield loaded
}

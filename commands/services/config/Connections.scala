package bankops.services.config

import cats.effect.IO
import cats.syntax.all._

import bankops.base.{Failure, Shell}

/** Builds the effective [[ConnectionSettings]] of a run: the one place that reads
  * the environment, the chosen context, the sandbox's state and the command-config file.
  */
object Connections {

  def sandboxDir(flag: Option[os.Path], shell: Shell): os.Path = sandboxDir(flag, None, shell)

  private def sandboxDir(flag: Option[os.Path], context: Option[os.Path], shell: Shell): os.Path =
    flag
      .orElse(shell.env.get("BANKOPS_SANDBOX_DIR").filter(_.nonEmpty).map(os.Path(_, os.pwd)))
      .orElse(context)
      .getOrElse(shell.data / "sandbox")

  /** The context the flags and environment choose, its secrets read: an unknown name, a variable that is not set or a
    * file that cannot be read is exit 2 naming it.
    */
  def context(flags: ConnectionFlags, shell: Shell): IO[Option[ChosenContext]] =
    if (!flags.useContexts) IO.pure(None)
    else ContextStore.read(shell.env).flatMap { contexts =>
      IO.fromEither(ContextStore.chosen(flags.context, shell.env, contexts).left.map(Failure.BadInput(_))).flatMap(_.traverse {
        case (name, c0) =>
          val c = c0.check.fold(why => throw Failure.BadInput(s"context $name: $why"), identity)
          def secret(what: String, ref: Option[SecretRef]) =
            ref.traverse(r => SecretRef.read(r, shell.env).left.map(why => Failure.BadInput(s"context $name: $what: $why")))
          IO.fromEither((secret("registry user info", c.registryUserInfo), secret("db password", c.dbPassword)).mapN(ChosenContext(name, c, _, _)))
      })
    }

  /** A sandbox is expected in `dir` (named by the flag, the variable or the context, or one has run there) but offers no
    * connection: it is down, or `sandbox up` is (re)starting it. Exit 3 naming it, rather than the default address, which
    * the operator never gave and where something else may listen.
    */
  private def sandboxDown(flags: ConnectionFlags, chosen: Option[ChosenContext], shell: Shell, dir: os.Path): IO[Unit] = {
    val named = flags.sandboxDir.isDefined || shell.env.get("BANKOPS_SANDBOX_DIR").exists(_.nonEmpty) ||
      chosen.exists(_.context.sandboxDir.isDefined)
    IO.blocking(named || os.exists(dir / SandboxConnection.StateFileName)).flatMap { expected =>
      val status = if (flags.sandboxDir.isDefined) s"bankops sandbox status --sandbox-dir $dir" else "bankops sandbox status"
      IO.raiseWhen(expected)(Failure.Unavailable(s"the sandbox at $dir is not up, or is being restarted: $status"))
    }
  }

  /** The settings, their Kafka part checked ([[KafkaCheck]]): a bad value is exit 2 naming it before any client is made.
    * `checked = false` for the jobs that report on settings rather than use them (`config show`, `doctor`).
    */
  def load(flags: ConnectionFlags, shell: Shell, checked: Boolean = true): IO[ConnectionSettings] =
    for {
      chosen <- context(flags, shell)
      dir = sandboxDir(flags.sandboxDir, chosen.flatMap(_.context.sandboxDir), shell)
      sandbox <- SandboxConnection.read(dir)
      settings = ConnectionSettings.resolve(flags, shell.env, sandbox, chosen)
      props <- settings.kafka.commandConfig.fold(IO.pure(Map.empty[String, String]))(c =>
        ClientProperties.load(c.value,
          c.source match {
            case Source.Flag(_) => "--command-config"
            case other => s"${other.describe}'s command-config"
          }))
      loaded = ConnectionSettings.withProperties(settings, props)
      _ <- IO(Secrets.remember(loaded))
      _ <- if (checked && sandbox.isEmpty && loaded.kafka.bootstrapServers.source == Source.Default) sandboxDown(flags, chosen, shell, dir)
      else IO.unit
      _ <- if (checked) IO.blocking(KafkaCheck(loaded.kafka)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_)))) else IO.unit
    } yield loaded
}

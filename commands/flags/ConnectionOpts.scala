package bankops.flags

import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.services.config.{ConnectionFlags, ContextStore, Setting}

/** The connection flags every job takes, read into [[ConnectionFlags]]: each setting's flag from its row of the
  * settings table (name, help, variable), so `context add` ([[ContextFlags]]) and the jobs cannot disagree.
  */
object ConnectionOpts {

  /** decline's option for a setting's flag; a setting with no flag is never set by one. */
  def setting[A](s: Setting[A]): Opts[Option[A]] =
    s.flag.fold(Opts(Option.empty[A]))(f => Opts.option[String](s.name, f.help, metavar = f.metavar).map(s.kind.parse).orNone)

  def path(name: String, help: String, metavar: String = "FILE"): Opts[Option[os.Path]] =
    Opts.option[String](name, help, metavar = metavar).map(os.Path(_, os.pwd)).orNone

  /** `--sandbox-dir`, for every job and for `sandbox` itself; `Connections.sandboxDir` resolves it. */
  val sandboxDir: Opts[Option[os.Path]] =
    path("sandbox-dir",
      "State directory of the local sandbox (env BANKOPS_SANDBOX_DIR; default .bankops/sandbox in a checkout, $XDG_DATA_HOME/bankops/sandbox installed).",
      "DIR")

  val context: Opts[Option[String]] =
    Opts.option[String]("context", s"Named settings to use (env ${ContextStore.Variable}; default: the one `bankops context use` chose).",
      metavar = "NAME").orNone

  // Each flag's name, help and variable are its Setting's; the same options are `context add`'s (ContextFlags).
  val opts: Opts[ConnectionFlags] = (
    setting(Setting.BootstrapServer),
    setting(Setting.CommandConfig),
    setting(Setting.RegistryUrl),
    setting(Setting.RegistryUserInfo),
    setting(Setting.RegistryCa),
    setting(Setting.DbUrl),
    setting(Setting.DbUser),
    sandboxDir,
    context,
    Opts.flag("no-context", "Use no context, not even the current one (the sandbox's own handler runs so).").orFalse
  ).tupled.mapValidated { case (b, c, r, u, ca, db, user, dir, ctx, none) =>
    if (none && ctx.isDefined) "--context and --no-context exclude each other".invalidNel
    else ConnectionFlags(bootstrapServer = b, commandConfig = c, registryUrl = r, registryUserInfo = u, registryCa = ca, dbUrl = db, dbUser = user,
      sandboxDir = dir, context = ctx, useContexts = !none).validNel
  }
}

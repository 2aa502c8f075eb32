package bankops.flags

import cats.data.Validated
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.services.config.{ConnectionContext, SecretRef, Setting}

/** The flags of `bankops context add`: the connection flags every job takes, with its secrets by reference
  * (`--db-password-env VAR`, `--registry-user-info-file PATH`, ...). A secret given in clear is refused (exit 2):
  * a context file keeps none.
  */
object ContextFlags {
  /** `--NAME` given in clear: refused, naming the flags that take it by reference. */
  private def refused(s: Setting[String]): Opts[Unit] = {
    val instead = s"--${s.name}-env VAR or --${s.name}-file PATH"
    Opts.option[String](s.name, s"Refused: a context keeps no secret in clear; use $instead.", metavar = "SECRET").orNone
      .mapValidated(v => Validated.condNel(v.isEmpty, (), s"--${s.name}: a context keeps no secret in clear; give it by reference with $instead"))
  }

  private def secret(s: Setting[String], what: String): Opts[Option[SecretRef]] =
    (
      Opts.option[String](s"${s.name}-env", s"Environment variable that holds the $what when the context is used.", metavar = "VAR").orNone,
      ConnectionOpts.path(s"${s.name}-file", s"File that holds the $what (its owner alone should read it).")
    ).tupled.mapValidated { case (env, file) => SecretRef.of(what, env, file).toValidatedNel }

  val opts: Opts[ConnectionContext] = (
    ConnectionOpts.setting(Setting.BootstrapServer),
    ConnectionOpts.setting(Setting.CommandConfig),
    ConnectionOpts.setting(Setting.RegistryUrl),
    secret(Setting.RegistryUserInfo, "registry's USER:PASSWORD"),
    refused(Setting.RegistryUserInfo),
    ConnectionOpts.setting(Setting.RegistryCa),
    ConnectionOpts.setting(Setting.DbUrl),
    ConnectionOpts.setting(Setting.DbUser),
    secret(Setting.DbPassword, "database password"),
    refused(Setting.DbPassword),
    ConnectionOpts.sandboxDir
  ).mapN((bootstrap, config, url, userInfo, _, ca, dbUrl, dbUser, dbPassword, _, dir) =>
    ConnectionContext(bootstrapServer = bootstrap, commandConfig = config, registryUrl = url, registryUserInfo = userInfo, registryCa = ca,
      dbUrl = dbUrl, dbUser = dbUser, dbPassword = dbPassword, sandboxDir = dir))
    .mapValidated(_.check.toValidatedNel)
}

package bankops.services.config

import cats.data.Validated
import cats.syntax.all._
import com.monovore.decline.Opts

/** The flags of `bankops context add`: the connection flags every job takes, with its secrets by reference
  * (`--db-password-env VAR`, `--registry-user-info-file PATH`, ...). A secret given in clear is refused (exit 2):
  * a context file keeps none.
  */
object ContextFlags {
  private def refused(flag: String, instead: String): Opts[Unit] =
    Opts.option[String](flag, s"Refused: a context keeps no secret in clear; use $instead.", metavar = "SECRET").orNone
      .mapValidated(v => Validated.condNel(v.isEmpty, (), s"--$flag: a context keeps no secret in clear; give it by reference with $instead"))

  private def secret(name: String, what: String): Opts[Option[SecretRef]] =
    (
      Opts.option[String](s"$name-env", s"Environment variable that holds the $what when the context is used.", metavar = "VAR").orNone,
      ConnectionFlags.path(s"$name-file", s"File that holds the $what (its owner alone should read it).")
    ).tupled.mapValidated { case (env, file) => SecretRef.of(what, env, file).toValidatedNel }

  val opts: Opts[ConnectionContext] = (
    ConnectionFlags.bootstrapServer,
    ConnectionFlags.commandConfig,
    ConnectionFlags.registryUrl,
    secret("registry-user-info", "registry's USER:PASSWORD"),
    refused("registry-user-info", "--registry-user-info-env VAR or --registry-user-info-file PATH"),
    ConnectionFlags.registryCa,
    ConnectionFlags.dbUrl,
    ConnectionFlags.dbUser,
    secret("db-password", "database password"),
    refused("db-password", "--db-password-env VAR or --db-password-file PATH"),
    ConnectionFlags.sandboxDir
  ).mapN((bootstrap, config, url, userInfo, _, ca, dbUrl, dbUser, dbPassword, _, dir) =>
    ConnectionContext(bootstrapServer = bootstrap, commandConfig = config, registryUrl = url, registryUserInfo = userInfo, registryCa = ca,
      dbUrl = dbUrl, dbUser = dbUser, dbPassword = dbPassword, sandboxDir = dir))
    .mapValidated(_.check.toValidatedNel)
}

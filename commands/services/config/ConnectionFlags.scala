package bankops.services.config

import cats.syntax.all._
import com.monovore.decline.Opts

/** The connection flags every job takes. Each falls back to an environment
  * variable (named in its help), then to the chosen context, then to the running sandbox, then a default;
  * the fallback is resolved in [[ConnectionSettings.resolve]] so that
  * `config show` can say where each value came from. `useContexts = false` is for what works on the sandbox whatever
  * context is chosen (`sandbox up`'s provisioning, `demo`).
  */
final case class ConnectionFlags(
    bootstrapServer: Option[String] = None,
    commandConfig: Option[os.Path] = None,
    registryUrl: Option[String] = None,
    registryUserInfo: Option[String] = None,
    registryCa: Option[os.Path] = None,
    dbUrl: Option[String] = None,
    dbUser: Option[String] = None,
    sandboxDir: Option[os.Path] = None,
    context: Option[String] = None,
    useContexts: Boolean = true
)

object ConnectionFlags {
  private[config] def path(name: String, help: String, metavar: String = "FILE"): Opts[Option[os.Path]] =
    Opts.option[String](name, help, metavar = metavar).map(os.Path(_, os.pwd)).orNone

  /** `--sandbox-dir`, for every job and for `sandbox` itself; [[Connections.sandboxDir]] resolves it. */
  val sandboxDir: Opts[Option[os.Path]] =
    path("sandbox-dir",
      "State directory of the local sandbox (env BANKOPS_SANDBOX_DIR; default .bankops/sandbox in a checkout, $XDG_DATA_HOME/bankops/sandbox installed).",
      "DIR")

  // One definition each, shared with `context add` (ContextFlags).
  private[config] val bootstrapServer: Opts[Option[String]] =
    Opts.option[String]("bootstrap-server", "Kafka bootstrap servers, host:port[,host:port] (env KAFKA_BROKERS).", metavar = "SERVERS").orNone
  private[config] val commandConfig: Opts[Option[os.Path]] =
    path("command-config", "Kafka client properties file in Kafka's own keys: security.protocol, ssl.* (env BANKOPS_COMMAND_CONFIG).")
  private[config] val registryUrl: Opts[Option[String]] =
    Opts.option[String]("registry-url", "Schema registry URL, Confluent API (env SCHEMA_REGISTRY_URL).", metavar = "URL").orNone
  private[config] val registryCa: Opts[Option[os.Path]] =
    path("registry-ca", "PEM CA certificate the registry's TLS certificate is checked against (env SCHEMA_REGISTRY_CA_LOCATION).")
  private[config] val dbUrl: Opts[Option[String]] =
    Opts.option[String]("db-url", "PostgreSQL JDBC URL (env DB_URL; password from env DB_PASSWORD).", metavar = "URL").orNone
  private[config] val dbUser: Opts[Option[String]] = Opts.option[String]("db-user", "PostgreSQL user (env DB_USER).", metavar = "USER").orNone

  val context: Opts[Option[String]] =
    Opts.option[String]("context", s"Named settings to use (env ${ContextStore.Variable}; default: the one `bankops context use` chose).",
      metavar = "NAME").orNone

  val opts: Opts[ConnectionFlags] = (
    bootstrapServer,
    commandConfig,
    registryUrl,
    Opts.option[String]("registry-user-info", "Registry basic auth as USER:PASSWORD (env SCHEMA_REGISTRY_USER_INFO).",
      metavar = "USER:PASSWORD").orNone,
    registryCa,
    dbUrl,
    dbUser,
    sandboxDir,
    context,
    Opts.flag("no-context", "Use no context, not even the current one (the sandbox's own handler runs so).").orFalse
  ).tupled.mapValidated { case (b, c, r, u, ca, db, user, dir, ctx, none) =>
    if (none && ctx.isDefined) "--context and --no-context exclude each other".invalidNel
    else ConnectionFlags(bootstrapServer = b, commandConfig = c, registryUrl = r, registryUserInfo = u, registryCa = ca, dbUrl = db, dbUser = user,
      sandboxDir = dir, context = ctx, useContexts = !none).validNel
  }

  /** Every environment variable connection settings are read from: a process the sandbox starts for itself gets none
    * of them from the shell that started it (they may name another cluster).
    */
  val Variables: List[String] = List("KAFKA_BROKERS", "BANKOPS_COMMAND_CONFIG", "SCHEMA_REGISTRY_URL", "SCHEMA_REGISTRY_USER_INFO",
    "SCHEMA_REGISTRY_CA_LOCATION", "DB_URL", "DB_USER", "DB_PASSWORD", ContextStore.Variable)
}

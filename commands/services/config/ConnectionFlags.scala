package bankops.services.config

import cats.syntax.all._
import com.monovore.decline.Opts

/** The connection flags every job takes. Each falls back to an environment
  * variable (named in its help), then to the running sandbox, then a default;
  * the fallback is resolved in [[ConnectionSettings.resolve]] so that
  * `config show` can say where each value came from.
  */
final case class ConnectionFlags(
    bootstrapServer: Option[String] = None,
    commandConfig: Option[os.Path] = None,
    registryUrl: Option[String] = None,
    registryUserInfo: Option[String] = None,
    registryCa: Option[os.Path] = None,
    dbUrl: Option[String] = None,
    dbUser: Option[String] = None,
    sandboxDir: Option[os.Path] = None
)

object ConnectionFlags {
  private def path(name: String, help: String): Opts[Option[os.Path]] =
    Opts.option[String](name, help, metavar = "FILE").map(os.Path(_, os.pwd)).orNone

  /** `--sandbox-dir`, for every job and for `sandbox` itself; [[Connections.sandboxDir]] resolves it. */
  val sandboxDir: Opts[Option[os.Path]] =
    Opts.option[String]("sandbox-dir", "State directory of the local sandbox (env BANKOPS_SANDBOX_DIR; default .bankops/sandbox).", metavar = "DIR")
      .map(os.Path(_, os.pwd)).orNone

  val opts: Opts[ConnectionFlags] = (
    Opts.option[String]("bootstrap-server", "Kafka bootstrap servers, host:port[,host:port] (env KAFKA_BROKERS).", metavar = "SERVERS").orNone,
    path("command-config", "Kafka client properties file in Kafka's own keys: security.protocol, ssl.* (env BANKOPS_COMMAND_CONFIG)."),
    Opts.option[String]("registry-url", "Schema registry URL, Confluent API (env SCHEMA_REGISTRY_URL).", metavar = "URL").orNone,
    Opts.option[String]("registry-user-info", "Registry basic auth as USER:PASSWORD (env SCHEMA_REGISTRY_USER_INFO).",
      metavar = "USER:PASSWORD").orNone,
    path("registry-ca", "PEM CA certificate the registry's TLS certificate is checked against (env SCHEMA_REGISTRY_CA_LOCATION)."),
    Opts.option[String]("db-url", "PostgreSQL JDBC URL (env DB_URL; password from env DB_PASSWORD).", metavar = "URL").orNone,
    Opts.option[String]("db-user", "PostgreSQL user (env DB_USER).", metavar = "USER").orNone,
    sandboxDir
  ).mapN(ConnectionFlags.apply)
}

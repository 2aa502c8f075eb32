package bankops.services.config

/** One connection setting, as every part of bankops that names it sees it: `config show`'s `key`, the flags' `name`
  * (`--NAME` for a job, `--NAME` or `--NAME-env`/`--NAME-file` for `context add`, `context show`'s row), its environment
  * variable, how a context and the sandbox hold it, its default, how it is shown and, for a secret, the server it
  * belongs to. [[Setting.all]] is the table; resolution ([[ConnectionSettings.resolve]]), `config show`'s rows, the
  * context check, `context show` and [[ConnectionFlags.Variables]] are read from it, so a setting is described once.
  *
  * @param flag     the job flag; None for a setting no command line may carry (a password there is seen in `ps`)
  * @param context  how a chosen context holds it
  * @param sandbox  what a running sandbox offers for it
  * @param resolved where [[ConnectionSettings]] keeps it once resolved (its typed fields are what the rest reads)
  */
final case class Setting[A](
    key: String,
    name: String,
    variable: String,
    kind: Setting.Kind[A],
    flag: Option[Setting.Flag[A]],
    context: Setting.InContext[A],
    sandbox: SandboxConnection => Option[A] = (_: SandboxConnection) => None,
    default: Option[A] = None,
    visibility: Setting.Visibility = Setting.Visibility.Plain,
    resolved: ConnectionSettings => Option[Sourced[A]]
) {

  /** The value as bankops may show it: a secret masked, a password written into a URL masked. */
  def show(value: A): String = visibility.show(kind.text(value))

  /** What makes it a secret, if it is one. */
  def secret: Option[Setting.Visibility.Secret] = Some(visibility).collect { case s: Setting.Visibility.Secret => s }

  /** Its resolved value as shown, with where it came from; None when not set. */
  def shown(settings: ConnectionSettings): Option[Sourced[String]] = resolved(settings).map(v => Sourced(show(v.value), v.source))

  /** The secret part of its resolved value, if it is a secret and set. */
  def hidden(settings: ConnectionSettings): Option[String] =
    secret.flatMap(s => resolved(settings).map(v => s.hidden(kind.text(v.value))))

  /** What `c` holds for it in clear, as text. */
  def clearText(c: ConnectionContext): Option[String] = context.inClear(c).map(kind.text)

  /** The file `c` names for it in clear. */
  def clearFile(c: ConnectionContext): Option[os.Path] = context.inClear(c).flatMap(kind.file)

  /** How `context show` writes what `c` holds for it: masked as everywhere, a secret by its reference only. */
  def inContext(c: ConnectionContext): Option[String] = context.inClear(c).map(show).orElse(context.reference(c).map(_.describe))
}

object Setting {

  /** A setting's values: text, or a file (relative to the working directory, as the clients resolve it). */
  final case class Kind[A](parse: String => A, text: A => String, file: A => Option[os.Path]) {
    def isFile: Boolean = this == Kind.File
  }
  object Kind {
    val Text: Kind[String] = Kind(identity, identity, _ => None)
    val File: Kind[os.Path] = Kind(os.Path(_, os.pwd), _.toString, Some(_))
  }

  /** A job flag: its metavar, its help (which names the variable), and where [[ConnectionFlags]] keeps its value. */
  final case class Flag[A](metavar: String, help: String, get: ConnectionFlags => Option[A])

  /** How a context holds a setting. */
  sealed trait InContext[A] {

    /** The value a chosen context gives, its secrets read. */
    def of(chosen: ChosenContext): Option[A]
    def inClear(c: ConnectionContext): Option[A]
    def reference(c: ConnectionContext): Option[SecretRef]
  }
  object InContext {

    /** Written in the contexts file as it is. */
    final case class Clear[A](get: ConnectionContext => Option[A]) extends InContext[A] {
      def of(chosen: ChosenContext): Option[A] = get(chosen.context)
      def inClear(c: ConnectionContext): Option[A] = get(c)
      def reference(c: ConnectionContext): Option[SecretRef] = None
    }

    /** A secret: the file keeps only where to find it (`--NAME-env`/`--NAME-file`); [[Connections.context]] reads it
      * into the [[ChosenContext]] when the context is chosen.
      */
    final case class ByReference(get: ConnectionContext => Option[SecretRef], read: ChosenContext => Option[String]) extends InContext[String] {
      def of(chosen: ChosenContext): Option[String] = read(chosen)
      def inClear(c: ConnectionContext): Option[String] = None
      def reference(c: ConnectionContext): Option[SecretRef] = get(c)
    }
  }

  /** The server a secret belongs to: the setting whose URL names it, and the server (host:port) a URL names, so that
    * another database or path on the same server still gets it and another server never does.
    */
  final case class Server(url: Setting[String], address: String => Option[String])

  /** How bankops shows a value wherever it writes it (`config show`, `context show`). */
  sealed abstract class Visibility(val show: String => String)
  object Visibility {
    case object Plain extends Visibility(identity)

    /** A URL, which may carry a password (`user:pw@`, `?password=`): that part masked. */
    case object Url extends Visibility(Secrets.maskUrl)

    /** A secret: masked by `mask`; `hidden` is its secret part, which no line bankops writes may show ([[Secrets]]).
      * It goes only to `server` when the sandbox or a context gave it ([[ConnectionSettings.resolve]]).
      */
    final case class Secret(server: Server, mask: String => String, hidden: String => String) extends Visibility(mask)
  }

  val BootstrapServer: Setting[String] = Setting(
    key = "kafka.bootstrap.servers", name = "bootstrap-server", variable = "KAFKA_BROKERS", kind = Kind.Text,
    flag = Some(Flag("SERVERS", "Kafka bootstrap servers, host:port[,host:port] (env KAFKA_BROKERS).", _.bootstrapServer)),
    context = InContext.Clear(_.bootstrapServer), sandbox = s => Some(s.bootstrapServers),
    default = Some(ConnectionSettings.DefaultBootstrap), resolved = s => Some(s.kafka.bootstrapServers))

  val CommandConfig: Setting[os.Path] = Setting(
    key = "kafka.command-config", name = "command-config", variable = "BANKOPS_COMMAND_CONFIG", kind = Kind.File,
    flag = Some(Flag("FILE", "Kafka client properties file in Kafka's own keys: security.protocol, ssl.* (env BANKOPS_COMMAND_CONFIG).",
        _.commandConfig)),
    context = InContext.Clear(_.commandConfig), sandbox = s => Some(s.commandConfig), resolved = _.kafka.commandConfig)

  val RegistryUrl: Setting[String] = Setting(
    key = "registry.url", name = "registry-url", variable = "SCHEMA_REGISTRY_URL", kind = Kind.Text,
    flag = Some(Flag("URL", "Schema registry URL, Confluent API (env SCHEMA_REGISTRY_URL).", _.registryUrl)),
    context = InContext.Clear(_.registryUrl), sandbox = s => Some(s.registryUrl), default = Some(ConnectionSettings.DefaultRegistry),
    visibility = Visibility.Url, resolved = s => Some(s.registry.url))

  val RegistryUserInfo: Setting[String] = Setting(
    key = "registry.user-info", name = "registry-user-info", variable = "SCHEMA_REGISTRY_USER_INFO", kind = Kind.Text,
    flag = Some(Flag("USER:PASSWORD", "Registry basic auth as USER:PASSWORD (env SCHEMA_REGISTRY_USER_INFO).", _.registryUserInfo)),
    context = InContext.ByReference(_.registryUserInfo, _.registryUserInfo),
    visibility = Visibility.Secret(Server(RegistryUrl, ConnectionSettings.httpServer), Secrets.maskUserInfo, Secrets.userInfoSecret),
    resolved = _.registry.userInfo)

  val RegistryCa: Setting[os.Path] = Setting(
    key = "registry.ca", name = "registry-ca", variable = "SCHEMA_REGISTRY_CA_LOCATION", kind = Kind.File,
    flag = Some(Flag("FILE", "PEM CA certificate the registry's TLS certificate is checked against (env SCHEMA_REGISTRY_CA_LOCATION).",
        _.registryCa)),
    context = InContext.Clear(_.registryCa), resolved = _.registry.caFile)

  val DbUrl: Setting[String] = Setting(
    key = "db.url", name = "db-url", variable = "DB_URL", kind = Kind.Text,
    flag = Some(Flag("URL", "PostgreSQL JDBC URL (env DB_URL; password from env DB_PASSWORD).", _.dbUrl)),
    context = InContext.Clear(_.dbUrl), sandbox = s => Some(s.dbUrl), default = Some(ConnectionSettings.DefaultDbUrl),
    visibility = Visibility.Url, resolved = s => Some(s.database.url))

  val DbUser: Setting[String] = Setting(
    key = "db.user", name = "db-user", variable = "DB_USER", kind = Kind.Text,
    flag = Some(Flag("USER", "PostgreSQL user (env DB_USER).", _.dbUser)),
    context = InContext.Clear(_.dbUser), sandbox = s => Some(s.dbUser), default = Some(ConnectionSettings.DefaultDbUser),
    resolved = s => Some(s.database.user))

  val DbPassword: Setting[String] = Setting(
    key = "db.password", name = "db-password", variable = "DB_PASSWORD", kind = Kind.Text, flag = None,
    context = InContext.ByReference(_.dbPassword, _.dbPassword), sandbox = s => Some(s.dbPassword),
    visibility = Visibility.Secret(Server(DbUrl, ConnectionSettings.jdbcServer), _ => Secrets.Mask, identity),
    resolved = _.database.password)

  /** Every connection setting, in `config show`'s and `context show`'s order. The sandbox directory and the context
    * are not in it: they choose where settings come from ([[Connections.sandboxDir]], [[ContextStore.chosen]]).
    */
  val all: List[Setting[_]] = List(BootstrapServer, CommandConfig, RegistryUrl, RegistryUserInfo, RegistryCa, DbUrl, DbUser, DbPassword)
}

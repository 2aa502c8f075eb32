package bankops.services.config

/** The one description of how bankops reaches Kafka, the registry and PostgreSQL. */
final case class ConnectionSettings(kafka: KafkaSettings, registry: RegistrySettings, database: DatabaseSettings)

object ConnectionSettings {
  val DefaultBootstrap = "localhost:9092"
  val DefaultRegistry = "http://localhost:8081"
  val DefaultDbUrl = "jdbc:postgresql://localhost:5432/balancedb"
  val DefaultDbUser = "postgres"

  /** Flag, then environment, then the chosen context, then the running sandbox, then the default: a pure function of its
    * inputs. The command-config file is chosen by the same rule; its properties are read afterwards ([[withProperties]]).
    */
  def resolve(flags: ConnectionFlags, env: Map[String, String], sandbox: Option[SandboxConnection],
              context: Option[ChosenContext] = None): ConnectionSettings = {
    def pick[A](flag: Option[A], flagName: String, envName: String, parse: String => A, fromSandbox: SandboxConnection => Option[A],
                fromContext: ChosenContext => Option[A]): Option[Sourced[A]] =
      flag.map(Sourced(_, Source.Flag(flagName)))
        .orElse(env.get(envName).filter(_.nonEmpty).map(v => Sourced(parse(v), Source.Env(envName))))
        .orElse(context.flatMap(c => fromContext(c).map(Sourced(_, Source.Context(c.name)))))
        .orElse(sandbox.flatMap(fromSandbox).map(Sourced(_, Source.Sandbox)))
    def orDefault[A](s: Option[Sourced[A]], default: A): Sourced[A] = s.getOrElse(Sourced(default, Source.Default))
    val asPath = (s: String) => os.Path(s, os.pwd)

    val bootstrap = orDefault(
      pick(flags.bootstrapServer, "bootstrap-server", "KAFKA_BROKERS", identity, s => Some(s.bootstrapServers), _.context.bootstrapServer),
      DefaultBootstrap)
    val commandConfig =
      pick(flags.commandConfig, "command-config", "BANKOPS_COMMAND_CONFIG", asPath, s => Some(s.commandConfig), _.context.commandConfig)
    val registryUrl = orDefault(
      pick(flags.registryUrl, "registry-url", "SCHEMA_REGISTRY_URL", identity, s => Some(s.registryUrl), _.context.registryUrl), DefaultRegistry)
    // A context's credentials go only to its own registry: never to one a flag or a variable names elsewhere.
    val userInfo = pick(flags.registryUserInfo, "registry-user-info", "SCHEMA_REGISTRY_USER_INFO", identity, _ => None, _.registryUserInfo)
      .filter(u => ownServer(u.source, context.flatMap(_.context.registryUrl), registryUrl.value, httpServer))
    val ca = pick(flags.registryCa, "registry-ca", "SCHEMA_REGISTRY_CA_LOCATION", asPath, _ => None, _.context.registryCa)
    val dbUrl = orDefault(pick(flags.dbUrl, "db-url", "DB_URL", identity, s => Some(s.dbUrl), _.context.dbUrl), DefaultDbUrl)
    val dbUser = orDefault(pick(flags.dbUser, "db-user", "DB_USER", identity, s => Some(s.dbUser), _.context.dbUser), DefaultDbUser)
    // The sandbox's or a context's password goes only to its own database server (another database there is fine):
    // never to a server a flag, a variable or another context names. DB_PASSWORD goes wherever DB_URL points.
    val dbPassword = pick(None, "", "DB_PASSWORD", identity, s => Some(s.dbPassword), _.dbPassword).filter { p =>
      val home = if (p.source == Source.Sandbox) sandbox.map(_.dbUrl) else context.flatMap(_.context.dbUrl)
      ownServer(p.source, home, dbUrl.value, jdbcServer)
    }

    ConnectionSettings(
      KafkaSettings(bootstrap, commandConfig, Map.empty),
      RegistrySettings(registryUrl, userInfo, ca),
      DatabaseSettings(dbUrl, dbUser, dbPassword)
    )
  }

  /** May a secret from `source` go to `target`? Always when a flag or a variable gave it; when the sandbox or a context
    * holds it, only to the server of the URL it came with (`home`; none: wherever its settings point).
    */
  private def ownServer(source: Source, home: Option[String], target: String, server: String => Option[String]): Boolean =
    source match {
      case Source.Sandbox | Source.Context(_) => home.forall(h => server(h) == server(target))
      case _ => true
    }

  /** host:port of a PostgreSQL JDBC URL, the port 5432 when none is written. */
  private[config] def jdbcServer(url: String): Option[String] =
    """^jdbc:postgresql://([^/?]+)""".r.findFirstMatchIn(url).map(_.group(1).toLowerCase).map(a => if (a.contains(':')) a else s"$a:5432")

  /** host:port of an HTTP(S) URL, the scheme's port when none is written. */
  private[config] def httpServer(url: String): Option[String] =
    scala.util.Try(new java.net.URI(url)).toOption.filter(_.getHost != null).map { u =>
      val port = if (u.getPort >= 0) u.getPort else if (u.getScheme == "https") 443 else 80
      s"${u.getHost.toLowerCase}:$port"
    }

  /** Adds the command-config file's properties: its `bootstrap.servers` and registry keys
    * fill in what neither a flag nor the environment set.
    */
  def withProperties(settings: ConnectionSettings, props: Map[String, String]): ConnectionSettings = {
    val file = settings.kafka.commandConfig.map(c => Source.File(c.value)).getOrElse(Source.Default)
    def weaker(s: Source) = s == Source.Sandbox || s == Source.Default
    val k = settings.kafka
    val bootstrap = props.get("bootstrap.servers") match {
      case Some(b) if weaker(k.bootstrapServers.source) => Sourced(b, file)
      case _ => k.bootstrapServers
    }
    val r = settings.registry
    val url = props.get("schema.registry.url") match {
      case Some(u) if weaker(r.url.source) => Sourced(u, file)
      case _ => r.url
    }
    val userInfo = r.userInfo.orElse(
      props.get("schema.registry.basic.auth.user.info").orElse(props.get("basic.auth.user.info")).map(Sourced(_, file))
    )
    settings.copy(
      kafka = k.copy(bootstrapServers = bootstrap, properties = props),
      registry = r.copy(url = url, userInfo = userInfo)
    )
  }
}

package bankops.services.config

/** The one description of how bankops reaches Kafka, the registry and PostgreSQL. */
final case class ConnectionSettings(kafka: KafkaSettings, registry: RegistrySettings, database: DatabaseSettings)

object ConnectionSettings {
  val DefaultBootstrap = "localhost:9092"
  val DefaultRegistry = "http://localhost:8081"
  val DefaultDbUrl = "jdbc:postgresql://localhost:5432/balancedb"
  val DefaultDbUser = "postgres"

  /** Flag, then environment, then the chosen context, then the running sandbox, then the default, each setting as
    * [[Setting.all]] describes it: a pure function of its inputs. The command-config file is chosen by the same rule; its
    * properties are read afterwards ([[withProperties]]).
    */
  def resolve(flags: ConnectionFlags, env: Map[String, String], sandbox: Option[SandboxConnection],
              context: Option[ChosenContext] = None): ConnectionSettings = {
    def get[A](s: Setting[A]) = value(s, flags, env, sandbox, context)
    // Only for settings with a default (Setting.all's own test holds them to it).
    def withDefault[A](s: Setting[A]) = get(s).getOrElse(throw new IllegalStateException(s"${s.key} has no default"))
    import Setting._
    ConnectionSettings(
      KafkaSettings(withDefault(BootstrapServer), get(CommandConfig), Map.empty),
      RegistrySettings(withDefault(RegistryUrl), get(RegistryUserInfo), get(RegistryCa)),
      DatabaseSettings(withDefault(DbUrl), withDefault(DbUser), get(DbPassword))
    )
  }

  /** One setting by [[resolve]]'s rule. A secret the sandbox or a context holds goes only to its own server
    * ([[ownServer]]): a context's registry credentials never to a registry a flag or a variable names elsewhere; the
    * sandbox's or a context's password never to a database server a flag, a variable or another context names (another
    * database on its server is fine). A flag's or a variable's secret goes wherever the settings point: the operator gave both.
    */
  private[config] def value[A](s: Setting[A], flags: ConnectionFlags, env: Map[String, String], sandbox: Option[SandboxConnection],
                               context: Option[ChosenContext]): Option[Sourced[A]] = {
    val picked = s.flag.flatMap(f => f.get(flags).map(Sourced(_, Source.Flag(s.name))))
      .orElse(env.get(s.variable).filter(_.nonEmpty).map(v => Sourced(s.kind.parse(v), Source.Env(s.variable))))
      .orElse(context.flatMap(c => s.context.of(c).map(Sourced(_, Source.Context(c.name)))))
      .orElse(sandbox.flatMap(s.sandbox).map(Sourced(_, Source.Sandbox)))
      .orElse(s.default.map(Sourced(_, Source.Default)))
    picked.filter(p =>
      s.secret.forall { secret =>
        val url = secret.server.url
        val home = p.source match {
          case Source.Sandbox => sandbox.flatMap(url.sandbox)
          case _ => context.flatMap(url.context.of)
        }
        ownServer(p.source, home, value(url, flags, env, sandbox, context).map(_.value), secret.server.address)
      })
  }

  /** May a secret from `source` go to `target`? Always when a flag or a variable gave it; when the sandbox or a context
    * holds it, only to the server of the URL it came with (`home`; none: wherever its settings point).
    */
  private def ownServer(source: Source, home: Option[String], target: Option[String], server: String => Option[String]): Boolean =
    source match {
      case Source.Sandbox | Source.Context(_) => home.forall(h => server(h) == target.flatMap(server))
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

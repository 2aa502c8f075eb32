package bankops.services.config

/** The chosen context with its secrets read ([[Connections.load]] reads them; [[ConnectionSettings.resolve]] stays pure). */
final case class ChosenContext(name: String, context: ConnectionContext, registryUserInfo: Option[String] = None, dbPassword: Option[String] = None)

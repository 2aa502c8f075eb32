package bankops.services.config

/** The connection flags every job takes (parsed by `flags/ConnectionOpts`). Each falls back to an environment
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
  /** Every environment variable connection settings are read from: a process the sandbox starts for itself gets none
    * of them from the shell that started it (they may name another cluster).
    */
  val Variables: List[String] = variables(Setting.all)

  /** The variables of `table`'s settings and the one that chooses a context. */
  private[config] def variables(table: List[Setting[_]]): List[String] = table.map(_.variable) :+ ContextStore.Variable
}

package bankops.services.config

/** Which values are secret, and how they are shown: never. */
object Secrets {
  val Mask: String = bankops.base.Redact.Mask

  def isSecretKey(key: String): Boolean = {
    val k = key.toLowerCase
    k.contains("password") || k.contains("jaas") || k.contains("user.info") || k.contains("secret") ||
    k == "ssl.keystore.key" || k.endsWith("ssl.keystore.key")
  }

  def maskProperty(key: String, value: String): String = if (isSecretKey(key)) Mask else value

  /** Masks the password in `scheme://user:password@host` and in `?password=` query parameters. */
  def maskUrl(url: String): String = bankops.base.Redact.url(url)

  /** The secret values of `settings`, so that no line bankops writes shows them, wherever they are quoted. */
  def remember(settings: ConnectionSettings): Unit = bankops.base.Redact.remember(values(settings))

  /** Those values: the command-config's secret properties and the secret part of each secret setting. */
  def values(settings: ConnectionSettings, table: List[Setting[_]] = Setting.all): List[String] =
    settings.kafka.properties.toList.collect { case (k, v) if isSecretKey(k) => v } ++ table.flatMap(_.hidden(settings))

  /** The secret part of `user:password`; a token with no user part is secret whole. */
  def userInfoSecret(userInfo: String): String = if (userInfo.contains(':')) userInfo.dropWhile(_ != ':').drop(1) else userInfo

  /** `user:password` becomes `user:****`; a token with no user part, `****`. */
  def maskUserInfo(userInfo: String): String = if (userInfo.contains(':')) userInfo.takeWhile(_ != ':') + ":" + Mask else Mask
}

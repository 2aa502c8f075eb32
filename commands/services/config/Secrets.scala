package bankops.services.config

/** Which values are secret, and how they are shown: never. */
object Secrets {
  val Mask = "****"

  def isSecretKey(key: String): Boolean = {
    val k = key.toLowerCase
    k.contains("password") || k.contains("jaas") || k.contains("user.info") || k.contains("secret") ||
      k == "ssl.keystore.key" || k.endsWith("ssl.keystore.key")
  }

  def maskProperty(key: String, value: String): String = if (isSecretKey(key)) Mask else value

  /** Masks the password in `scheme://user:password@host` and in `?password=` query parameters. */
  def maskUrl(url: String): String =
    url
      .replaceAll("(://[^/@:]*):[^/@]*@", "$1:" + Mask + "@")
      .replaceAll("(?i)([?&]password=)[^&]*", "$1" + Mask)

  /** `user:password` becomes `user:****`. */
  def maskUserInfo(userInfo: String): String = userInfo.takeWhile(_ != ':') + ":" + Mask
}

package bankops.jobs.sandbox

/** The Kafka client properties that reach the sandbox over SSL, as written to
  * `client.properties` for bankops, Kafka's own tools and anything JVM-based.
  */
object ClientConfig {
  def properties(layout: SandboxLayout, secrets: SandboxSecrets): Map[String, String] = Map(
    "security.protocol" -> "SSL",
    "ssl.truststore.location" -> layout.tls.truststore.toString,
    "ssl.truststore.type" -> "PKCS12",
    "ssl.truststore.password" -> secrets.tlsPassword,
    "ssl.keystore.location" -> layout.tls.client.toString,
    "ssl.keystore.type" -> "PKCS12",
    "ssl.keystore.password" -> secrets.tlsPassword,
    "ssl.key.password" -> secrets.tlsPassword,
    "ssl.endpoint.identification.algorithm" -> "https"
  )

  def write(layout: SandboxLayout, secrets: SandboxSecrets): Unit =
    os.write.over(
      layout.clientProperties,
      "# Kafka client settings for the bankops sandbox (SSL; the keystore also serves --mtls)\n" +
        properties(layout, secrets).toList.sorted.map { case (k, v) => s"$k=$v" }.mkString("", "\n", "\n"),
      perms = "rw-------"
    )
}

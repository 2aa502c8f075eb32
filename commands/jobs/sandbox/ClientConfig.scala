package bankops.jobs.sandbox

import bankops.base.AtomicFile

/** The Kafka client properties of the sandbox's identities, as written for bankops, Kafka's own tools and anything
  * JVM-based: `identities/<name>.properties` authenticates with the identity's certificate on the SSL listener,
  * `identities/<name>-scram.properties` as its SCRAM user on the SASL_SSL listener. `client.properties` is the
  * operator's certificate.
  */
object ClientConfig {
  val ScramMechanism = "SCRAM-SHA-512"

  private def trust(layout: SandboxLayout, secrets: SandboxSecrets): Map[String, String] = Map(
    "ssl.truststore.location" -> layout.tls.truststore.toString,
    "ssl.truststore.type" -> "PKCS12",
    "ssl.truststore.password" -> secrets.tlsPassword,
    "ssl.endpoint.identification.algorithm" -> "https"
  )

  /** The identity's certificate. */
  def properties(layout: SandboxLayout, secrets: SandboxSecrets, identity: String = Identities.Operator): Map[String, String] =
    trust(layout, secrets) ++ Map(
      "security.protocol" -> "SSL",
      "ssl.keystore.location" -> layout.tls.identity(identity).keystore.toString,
      "ssl.keystore.type" -> "PKCS12",
      "ssl.keystore.password" -> secrets.tlsPassword,
      "ssl.key.password" -> secrets.tlsPassword
    )

  /** The identity's SCRAM user, over TLS. */
  def scramProperties(layout: SandboxLayout, secrets: SandboxSecrets, identity: String): Map[String, String] =
    trust(layout, secrets) ++ Map(
      "security.protocol" -> "SASL_SSL",
      "sasl.mechanism" -> ScramMechanism,
      "sasl.jaas.config" ->
        s"""org.apache.kafka.common.security.scram.ScramLoginModule required username="$identity" password="${secrets.scramPassword(identity)}";"""
    )

  def file(layout: SandboxLayout, identity: String, scram: Boolean): os.Path =
    layout.identitiesDir / s"$identity${if (scram) "-scram" else ""}.properties"

  /** Every identity's files, and `client.properties`; only their owner may read them (they hold passwords). Each is
    * replaced whole: `up` on a running sandbox rewrites them while jobs read them.
    */
  def write(layout: SandboxLayout, secrets: SandboxSecrets): Unit = {
    def render(header: String, props: Map[String, String]) =
      s"# $header\n" + props.toList.sorted.map { case (k, v) => s"$k=$v" }.mkString("", "\n", "\n")
    os.makeDir.all(layout.identitiesDir)
    Identities.all.foreach { id =>
      AtomicFile.write(file(layout, id, scram = false),
        render(s"bankops sandbox: $id, by certificate (SSL listener)", properties(layout, secrets, id)))
      AtomicFile.write(file(layout, id, scram = true),
        render(s"bankops sandbox: $id, as SCRAM user (SASL_SSL listener)", scramProperties(layout, secrets, id)))
    }
    AtomicFile.write(layout.clientProperties,
      render("Kafka client settings for the bankops sandbox: the operator, by certificate", properties(layout, secrets)))
  }
}

package bankops.services.config

/** The identity a broker sees, from client properties alone: stores made with the JDK's keytool, as an operator's would be. */
class ClientIdentitySuite extends munit.FunSuite {
  // A hang guard only: the store is made by keytool (a JVM) twice; nothing asserted depends on time (#58).
  override val munitTimeout: scala.concurrent.duration.Duration = scala.concurrent.duration.Duration(5, "min")

  private val stores = new bankops.support.OnceMade(d => {
    os.proc("keytool", "-genkeypair", "-alias", "reader", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=reader,O=bank", "-validity", "2",
      "-keystore", "reader.p12", "-storetype", "PKCS12", "-storepass", "s3cret-pass").call(cwd = d, stderr = os.Pipe)
    os.proc("keytool", "-exportcert", "-rfc", "-alias", "reader", "-keystore", "reader.p12", "-storepass", "s3cret-pass", "-file", "reader.pem")
      .call(cwd = d, stderr = os.Pipe)
  })

  private val dir = FunFixture[os.Path](_ => stores.copy(), d => os.remove.all(d))

  override def afterAll(): Unit = stores.remove()

  private def ssl(d: os.Path, password: String) = Map("security.protocol" -> "SSL", "ssl.keystore.location" -> (d / "reader.p12").toString,
    "ssl.keystore.type" -> "PKCS12", "ssl.keystore.password" -> password)

  dir.test("SSL with a PKCS12 keystore: the subject of its certificate, read with the configured password") { d =>
    val id = ClientIdentity.of(ssl(d, "s3cret-pass"))
    assertEquals(id, ClientIdentity.Certificate("CN=reader,O=bank"))
    assertEquals(id.describe, "CN=reader,O=bank")
    assertEquals(id.principals, List("User:CN=reader,O=bank", "User:reader"))
  }

  dir.test("a keystore that does not open is named, never its password") { d =>
    val id = ClientIdentity.of(ssl(d, "wrong-pass"))
    assert(id.isInstanceOf[ClientIdentity.Unreadable], id)
    assert(id.describe.contains((d / "reader.p12").toString) && id.describe.contains("does not open"), id.describe)
    assert(!id.describe.contains("wrong-pass"), id.describe)
  }

  dir.test("a PEM keystore, by location or inline: the subject of its first certificate") { d =>
    val inline = Map("security.protocol" -> "SSL", "ssl.keystore.type" -> "PEM", "ssl.keystore.certificate.chain" -> os.read(d / "reader.pem"))
    assertEquals(ClientIdentity.of(inline).describe, "CN=reader,O=bank")
    val byFile = Map("security.protocol" -> "SSL", "ssl.keystore.type" -> "PEM", "ssl.keystore.location" -> (d / "reader.pem").toString)
    assertEquals(ClientIdentity.of(byFile).describe, "CN=reader,O=bank")
  }

  test("SASL: the JAAS config's user, read by Kafka's own parser; the password never") {
    val jaas = """org.apache.kafka.common.security.scram.ScramLoginModule required username="reader" password="pa\"ss";"""
    val id = ClientIdentity.of(Map("security.protocol" -> "SASL_SSL", "sasl.mechanism" -> "SCRAM-SHA-512", "sasl.jaas.config" -> jaas))
    assertEquals(id.describe, "SCRAM user reader")
    assertEquals(id.principals, List("User:reader"))
    val plain = ClientIdentity.of(Map("security.protocol" -> "SASL_PLAINTEXT", "sasl.mechanism" -> "PLAIN",
        "sasl.jaas.config" -> "org.apache.kafka.common.security.plain.PlainLoginModule required username=ops password=x;"))
    assertEquals(plain.describe, "PLAIN user ops")
    val none = ClientIdentity.of(Map("security.protocol" -> "SASL_SSL", "sasl.mechanism" -> "SCRAM-SHA-256", "sasl.jaas.config" -> "garbage"))
    assert(none.isInstanceOf[ClientIdentity.Unreadable] && !none.describe.contains("garbage"), none.describe)
  }

  dir.test("SASL over SSL is the SASL user even when a keystore is configured") { d =>
    val props = ssl(d, "s3cret-pass") ++ Map("security.protocol" -> "SASL_SSL", "sasl.mechanism" -> "SCRAM-SHA-512",
      "sasl.jaas.config" -> """org.apache.kafka.common.security.scram.ScramLoginModule required username="loader" password="p";""")
    assertEquals(ClientIdentity.of(props).describe, "SCRAM user loader")
  }

  test("no keystore, no SASL: anonymous") {
    assertEquals(ClientIdentity.of(Map.empty), ClientIdentity.Anonymous)
    assertEquals(ClientIdentity.of(Map("security.protocol" -> "SSL", "ssl.truststore.location" -> "/x")).describe, "no client identity (anonymous)")
  }

  dir.test("the description names where the client properties came from") { d =>
    def kafka(source: Source) = KafkaSettings(Sourced("h:1", Source.Default), Some(Sourced(d / "c.properties", source)), ssl(d, "s3cret-pass"))
    assertEquals(ClientIdentity.describe(kafka(Source.Env("BANKOPS_COMMAND_CONFIG"))), "CN=reader,O=bank (from BANKOPS_COMMAND_CONFIG)")
    assertEquals(ClientIdentity.describe(kafka(Source.Context("prod"))), "CN=reader,O=bank (from context prod)")
    assertEquals(ClientIdentity.describe(kafka(Source.Flag("command-config"))), "CN=reader,O=bank (from --command-config)")
    assertEquals(ClientIdentity.describe(kafka(Source.Sandbox)), "CN=reader,O=bank (from the sandbox)")
    assertEquals(ClientIdentity.describe(KafkaSettings(Sourced("h:1", Source.Default), None, Map.empty)), "no client identity (anonymous)")
  }
}

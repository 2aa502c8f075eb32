package bankops.services.config

import java.security.cert.X509Certificate

/** Stores made with the JDK's keytool, as an operator's would be. */
class TlsProfileSuite extends munit.FunSuite {
  // A hang guard only: keytool (a JVM) makes the suite's stores in three runs, and nothing asserted depends on time; on two
  // cores shared with the sandbox's tests that passed munit's default 30 s (#58).
  override val munitTimeout: scala.concurrent.duration.Duration = scala.concurrent.duration.Duration(5, "min")

  private val stores = new bankops.support.OnceMade(d => {
    def keytool(args: String*) = os.proc("keytool" +: args).call(cwd = d, stderr = os.Pipe)
    keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=bankops test CA", "-validity", "2",
      "-keystore", "keys.p12", "-storetype", "PKCS12", "-storepass", "secret1")
    keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", "keys.p12", "-storepass", "secret1", "-file", "ca.pem")
    keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "trust.p12", "-storetype", "PKCS12", "-storepass",
      "secret2")
  })

  private val dir = FunFixture[os.Path](_ => stores.copy(), d => os.remove.all(d))

  override def afterAll(): Unit = stores.remove()

  test("nothing TLS-specific configured: no context, the JVM's default trust applies") {
    assertEquals(TlsProfile.sslContext(Map("security.protocol" -> "SSL"), None), None)
  }

  dir.test("a PEM CA becomes a trust store holding that certificate") { d =>
    val ks = TlsProfile.pemTrustStore(os.read(d / "ca.pem"))
    val cert = ks.getCertificate("ca-0").asInstanceOf[X509Certificate]
    assertEquals(cert.getSubjectX500Principal.getName, "CN=bankops test CA")
    assert(TlsProfile.sslContext(Map.empty, Some(d / "ca.pem")).isDefined)
  }

  dir.test("Kafka's ssl.* keys: PKCS12 truststore and keystore, PEM truststore by location or inline") { d =>
    assert(TlsProfile.sslContext(Map("ssl.truststore.location" -> (d / "trust.p12").toString, "ssl.truststore.type" -> "PKCS12",
          "ssl.truststore.password" -> "secret2"), None).isDefined)
    assert(TlsProfile.sslContext(Map("ssl.keystore.location" -> (d / "keys.p12").toString, "ssl.keystore.type" -> "PKCS12",
          "ssl.keystore.password" -> "secret1"), None).isDefined)
    assert(TlsProfile.sslContext(Map("ssl.truststore.type" -> "PEM", "ssl.truststore.location" -> (d / "ca.pem").toString), None).isDefined)
    assert(TlsProfile.sslContext(Map("ssl.truststore.type" -> "PEM", "ssl.truststore.certificates" -> os.read(d / "ca.pem")), None).isDefined)
  }

  dir.test("a wrong store password is an error, not an empty trust") { d =>
    intercept[java.io.IOException](TlsProfile.sslContext(Map("ssl.truststore.location" -> (d / "trust.p12").toString,
          "ssl.truststore.type" -> "PKCS12", "ssl.truststore.password" -> "wrong"), None))
  }
}

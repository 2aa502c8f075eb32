package bankops.services.registry

import bankops.services.config.{RegistrySettings, Source, Sourced}

class RegistryEndpointSuite extends munit.FunSuite {
  private def settings(url: String, userInfo: Option[String] = None, ca: Option[os.Path] = None) =
    RegistrySettings(Sourced(url, Source.Env("SCHEMA_REGISTRY_URL")), userInfo.map(Sourced(_, Source.Flag("registry-user-info"))),
      ca.map(Sourced(_, Source.Flag("registry-ca"))))

  test("a URL's credentials become basic auth and leave the URL; a path is kept, a trailing slash dropped") {
    assertEquals(RegistryEndpoint.from(settings("http://alice:s%40cret@reg.example:8081/apis/ccompat/v7/")),
      Right(RegistryEndpoint("http://reg.example:8081/apis/ccompat/v7", Some("alice:s@cret"))))
    assertEquals(RegistryEndpoint.from(settings("https://reg.example", Some("bob:pw"))),
      Right(RegistryEndpoint("https://reg.example", Some("bob:pw"))))
  }

  test("bad URLs are named with where they came from, the password masked") {
    val cases = List(
      "ftp://reg.example" -> "the scheme must be http or https",
      "reg.example:8081" -> "the scheme must be http or https",
      "http://" -> "",
      "http://reg example:8081" -> "",
      "http://reg.example:8081/?x=1" -> "a query or fragment"
    )
    cases.foreach { case (url, why) =>
      val r = RegistryEndpoint.from(settings(url))
      assert(r.left.exists(m => m.startsWith("env SCHEMA_REGISTRY_URL: ") && m.contains("is not a registry URL") && m.contains(why)), s"$url: $r")
    }
    val secret = RegistryEndpoint.from(settings("ftp://alice:Secr3t@reg.example"))
    assert(secret.left.exists(m => !m.contains("Secr3t") && m.contains("alice:****@")), secret.toString)
  }

  test("credentials in the URL and in --registry-user-info: refused, naming both") {
    val r = RegistryEndpoint.from(settings("http://alice:pw@reg.example", Some("bob:pw2")))
    assertEquals(r, Left("env SCHEMA_REGISTRY_URL: the URL carries credentials and flag --registry-user-info gives them too; give them once"))
  }

  test("--registry-ca: missing, a directory, or a file without a PEM certificate") {
    val dir = os.temp.dir()
    val notPem = dir / "ca.txt"
    os.write(notPem, "not a certificate")
    List(dir / "missing.pem" -> "does not exist", dir -> "is a directory", notPem -> "holds no PEM certificate").foreach { case (p, why) =>
      assertEquals(RegistryEndpoint.from(settings("https://reg.example", ca = Some(p))),
        Left(s"flag --registry-ca: $p $why" +
          (if (why == "is a directory") ", not a PEM CA certificate" else "")))
    }
  }

  test("the registry's TLS: its own schema.registry.ssl.* keys when given, else the Kafka profile") {
    val kafka = Map("security.protocol" -> "SSL", "ssl.truststore.location" -> "/k.p12")
    assertEquals(RegistryEndpoint.tlsProperties(kafka), kafka)
    assertEquals(RegistryEndpoint.tlsProperties(kafka + ("schema.registry.ssl.truststore.location" -> "/r.p12")),
      Map("ssl.truststore.location" -> "/r.p12"))
  }
}

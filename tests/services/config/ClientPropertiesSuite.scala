package bankops.services.config

import cats.effect.IO

import bankops.base.Failure

import bankops.support.IOSuite

class ClientPropertiesSuite extends IOSuite {

  test("Kafka keys, registry keys, comments, continuations and every separator Kafka accepts") {
    val text =
      """# client settings
        |security.protocol=SSL
        |ssl.truststore.type: PKCS12
        |ssl.endpoint.identification.algorithm https
        |! another comment
        |basic.auth.user.info=alice:\
        |   s3cret
        |schema.registry.ssl.truststore.location=/tmp/ca.p12
        |""".stripMargin
    val props = ClientProperties.parse(text, "client.properties").fold(e => fail(e), identity)
    assertEquals(props("security.protocol"), "SSL")
    assertEquals(props("ssl.truststore.type"), "PKCS12")
    assertEquals(props("ssl.endpoint.identification.algorithm"), "https")
    assertEquals(props("basic.auth.user.info"), "alice:s3cret")
    assertEquals(props.size, 5)
  }

  test("a line without a separator names the file and line") {
    assertEquals(
      ClientProperties.parse("security.protocol=SSL\n\nssl.truststore.location\n", "c.properties"),
      Left("c.properties:3: expected key=value, got 'ssl.truststore.location'")
    )
  }

  test("a malformed unicode escape names the file and line (Properties threw: 'unexpected error')") {
    val text = "security.protocol=SSL\nssl.truststore.password=a\\uZZZZ\n"
    assertEquals(ClientProperties.parse(text, "c.properties"),
      Left("c.properties:2: malformed unicode escape (a backslash-u must be followed by four hex digits)"))
    assertEquals(ClientProperties.parse("linger.ms=5\\\\uZZZZ\n", "c.properties").isRight, true)
  }

  test("a misspelt key is refused instead of silently ignored by the Java client") {
    val err = ClientProperties.parse("ssl.truststore.locaton=/x\n", "c.properties").swap.getOrElse(fail("accepted"))
    assert(err.contains("unknown property 'ssl.truststore.locaton'"), err)
  }

  test("an empty value is refused") {
    assert(ClientProperties.parse("ssl.truststore.password=\n", "c").swap.exists(_.contains("has no value")))
  }

  test("load: a missing file and a store that does not exist are bad input (exit 2)") {
    val dir = os.temp.dir()
    val missing = ClientProperties.load(dir / "nope.properties").attempt
    val badStore = IO(os.write(dir / "c.properties", s"ssl.truststore.location=$dir/ca.p12\n")) >> ClientProperties.load(dir / "c.properties").attempt
    missing.map {
      case Left(f: Failure.BadInput) => assert(f.message.contains("no such file"), f.message)
      case other => fail(s"expected BadInput, got $other")
    } >> badStore.map {
      case Left(f: Failure.BadInput) => assert(f.message.contains(s"$dir/ca.p12"), f.message)
      case other => fail(s"expected BadInput, got $other")
    }
  }

  test("load: a store that exists is accepted") {
    val dir = os.temp.dir()
    os.write(dir / "ca.p12", "x")
    os.write(dir / "c.properties", s"ssl.truststore.location=$dir/ca.p12\n")
    ClientProperties.load(dir / "c.properties").map(p => assertEquals(p("ssl.truststore.location"), s"$dir/ca.p12"))
  }
}

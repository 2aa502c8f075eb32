package bankops.services.config

import org.apache.kafka.clients.admin.AdminClientConfig

import scala.jdk.CollectionConverters._

/** One SSL context per process for the same settings and store files: the Kafka clients' stores opened once. */
class SharedSslEngineFactorySuite extends munit.FunSuite {
  // A hang guard only: keytool (a JVM) makes the suite's store once; nothing asserted depends on time.
  override val munitTimeout: scala.concurrent.duration.Duration = scala.concurrent.duration.Duration(5, "min")

  private val stores = new bankops.support.OnceMade(d =>
    os.proc("keytool", "-genkeypair", "-alias", "me", "-keyalg", "EC", "-dname", "CN=bankops test", "-validity", "2", "-keystore",
      "keys.p12", "-storetype", "PKCS12", "-storepass", "secret1").call(cwd = d, stderr = os.Pipe))

  private val dir = FunFixture[os.Path](_ => stores.copy(), d => os.remove.all(d))

  override def afterAll(): Unit = stores.remove()

  /** The values a Kafka client hands its SSL engine factory: parsed as the admin client parses them (passwords as
    * Kafka's Password, defaults filled in).
    */
  private def configs(store: os.Path, password: String, extra: (String, String)*): java.util.Map[String, _] =
    new AdminClientConfig((KafkaSettings.defaults ++ Map("bootstrap.servers" -> "localhost:1", "security.protocol" -> "SSL",
        "ssl.keystore.location" -> store.toString, "ssl.keystore.type" -> "PKCS12", "ssl.keystore.password" -> password) ++ extra).asJava)
      .values()

  private def factory(configs: java.util.Map[String, _]): SharedSslEngineFactory = {
    val f = new SharedSslEngineFactory
    f.configure(configs)
    f
  }

  test("bankops' clients name the shared factory unless a command-config names its own") {
    val mine = "com.example.MyFactory"
    val props = KafkaSettings(Sourced("localhost:1", Source.Default), None, Map("ssl.engine.factory.class" -> mine)).clientProperties
    assertEquals(KafkaSettings.defaults.get("ssl.engine.factory.class"), Some(classOf[SharedSslEngineFactory].getName))
    assertEquals(props.get("ssl.engine.factory.class"), Some(mine))
  }

  dir.test("clients with the same settings and store share one opened store; other settings get their own") { d =>
    val store = d / "keys.p12"
    val (a, b) = (factory(configs(store, "secret1")), factory(configs(store, "secret1")))
    assert(a.keystore() eq b.keystore())
    assert(a.createClientSslEngine("localhost", 1, "https").getUseClientMode)
    val other = factory(configs(store, "secret1", "ssl.enabled.protocols" -> "TLSv1.3"))
    assert(!(other.keystore() eq a.keystore()))
    a.close()
    // Closing one client's factory leaves the others' working.
    assert(b.createClientSslEngine("localhost", 1, "https") != null)
  }

  dir.test("a store file rewritten is opened again by the next client") { d =>
    val store = d / "keys.p12"
    val before = factory(configs(store, "secret1"))
    os.write.over(store, os.read.bytes(store))
    store.toIO.setLastModified(store.toIO.lastModified + 2000)
    assert(!(factory(configs(store, "secret1")).keystore() eq before.keystore()))
  }

  dir.test("a wrong password fails that client and is not kept: the right one then opens the store") { d =>
    val store = d / "keys.p12"
    val e = intercept[org.apache.kafka.common.KafkaException](factory(configs(store, "wrong")))
    assert(!String.valueOf(e.getMessage).contains("secret1"), e.getMessage)
    assert(factory(configs(store, "secret1")).keystore() != null)
  }
}

package bankops.services.config

class SecretsSuite extends munit.FunSuite {
  test("which keys are secret") {
    List("ssl.truststore.password", "ssl.key.password", "sasl.jaas.config", "basic.auth.user.info", "schema.registry.basic.auth.user.info",
      "client.secret", "ssl.keystore.key", "schema.registry.ssl.keystore.key", "DB_PASSWORD").foreach(k => assert(Secrets.isSecretKey(k), k))
    List("bootstrap.servers", "ssl.truststore.location", "security.protocol", "ssl.keystore.type").foreach(k => assert(!Secrets.isSecretKey(k), k))
  }

  test("masking: properties, URLs, user info") {
    assertEquals(Secrets.maskProperty("ssl.key.password", "hunter2"), "****")
    assertEquals(Secrets.maskProperty("security.protocol", "SSL"), "SSL")
    assertEquals(Secrets.maskUrl("https://user:hunter2@registry:8081/apis"), "https://user:****@registry:8081/apis")
    assertEquals(Secrets.maskUrl("jdbc:postgresql://db:5432/balancedb?user=bank&password=hunter2&ssl=true"),
      "jdbc:postgresql://db:5432/balancedb?user=bank&password=****&ssl=true")
    // pgjdbc's client-key password too.
    assertEquals(Secrets.maskUrl("jdbc:postgresql://db/x?sslkey=/k.pk8&sslpassword=K3y"), "jdbc:postgresql://db/x?sslkey=/k.pk8&sslpassword=****")
    assertEquals(Secrets.maskUrl("http://localhost:8081"), "http://localhost:8081")
    assertEquals(Secrets.maskUserInfo("svc:hunter2"), "svc:****")
    assertEquals(Secrets.maskUserInfo("svc"), "****") // a bare token is secret whole
  }
}

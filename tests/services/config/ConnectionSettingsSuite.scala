package bankops.services.config

import bankops.jobs.config.ConfigCommand

class ConnectionSettingsSuite extends munit.FunSuite {
  private val sandbox = SandboxConnection("localhost:19093", os.Path("/sb/client.properties"), "http://localhost:18081/apis/ccompat/v7",
    "jdbc:postgresql://localhost:15432/balancedb", "bank", "pw-from-sandbox")

  test("flag beats environment beats sandbox beats default") {
    val env = Map("KAFKA_BROKERS" -> "env:9092", "SCHEMA_REGISTRY_URL" -> "http://env:8081")
    val s = ConnectionSettings.resolve(ConnectionFlags(bootstrapServer = Some("flag:9092")), env, Some(sandbox))
    assertEquals(s.kafka.bootstrapServers, Sourced("flag:9092", Source.Flag("bootstrap-server")))
    assertEquals(s.registry.url, Sourced("http://env:8081", Source.Env("SCHEMA_REGISTRY_URL")))
    assertEquals(s.database.url, Sourced(sandbox.dbUrl, Source.Sandbox))
    assertEquals(s.kafka.commandConfig, Some(Sourced(sandbox.commandConfig, Source.Sandbox)))
    val none = ConnectionSettings.resolve(ConnectionFlags(), Map.empty, None)
    assertEquals(none.kafka.bootstrapServers, Sourced(ConnectionSettings.DefaultBootstrap, Source.Default))
    assertEquals(none.database.password, None)
  }

  test("the sandbox's or a context's password goes only to its own database server; a context's user-info only to its registry") {
    def password(flags: ConnectionFlags, env: Map[String, String] = Map.empty, context: Option[ChosenContext] = None) =
      ConnectionSettings.resolve(flags, env, Some(sandbox), context).database.password
    assertEquals(password(ConnectionFlags()), Some(Sourced("pw-from-sandbox", Source.Sandbox)))
    // Another database on the sandbox's server (the tests' own banks) keeps the password; another server never gets it.
    assertEquals(password(ConnectionFlags(dbUrl = Some("jdbc:postgresql://LOCALHOST:15432/bank_x"))).map(_.value), Some("pw-from-sandbox"))
    assertEquals(password(ConnectionFlags(dbUrl = Some("jdbc:postgresql://db.prod/balancedb"))), None)
    assertEquals(password(ConnectionFlags(), env = Map("DB_URL" -> "jdbc:postgresql://localhost:5432/balancedb")), None)
    // DB_PASSWORD goes wherever the URL points: the operator gave both.
    assertEquals(password(ConnectionFlags(dbUrl = Some("jdbc:postgresql://db.prod/b")), env = Map("DB_PASSWORD" -> "p")).map(_.value), Some("p"))
    val prod = ChosenContext("prod",
      ConnectionContext(dbUrl = Some("jdbc:postgresql://db.prod:5432/balancedb"),
        registryUrl = Some("https://reg.prod/apis/ccompat/v7")), registryUserInfo = Some("svc:token"), dbPassword = Some("prod-pw"))
    assertEquals(password(ConnectionFlags(), context = Some(prod)), Some(Sourced("prod-pw", Source.Context("prod"))))
    assertEquals(password(ConnectionFlags(dbUrl = Some("jdbc:postgresql://evil:5432/balancedb")), context = Some(prod)), None)
    def userInfo(flags: ConnectionFlags) = ConnectionSettings.resolve(flags, Map.empty, None, Some(prod)).registry.userInfo.map(_.value)
    assertEquals(userInfo(ConnectionFlags()), Some("svc:token"))
    assertEquals(userInfo(ConnectionFlags(registryUrl = Some("https://reg.prod:443/other"))), Some("svc:token"))
    assertEquals(userInfo(ConnectionFlags(registryUrl = Some("http://evil:8081"))), None)
  }

  test("an empty environment variable does not count as set") {
    val s = ConnectionSettings.resolve(ConnectionFlags(), Map("KAFKA_BROKERS" -> ""), None)
    assertEquals(s.kafka.bootstrapServers.source, Source.Default)
  }

  test("the command-config file fills in what neither flag nor environment set") {
    val file = os.Path("/etc/bank/client.properties")
    val flags = ConnectionFlags(commandConfig = Some(file), registryUrl = Some("http://flag:8081"))
    val props = Map("bootstrap.servers" -> "file:9093", "schema.registry.url" -> "http://file:8081", "basic.auth.user.info" -> "u:p")
    val s = ConnectionSettings.withProperties(ConnectionSettings.resolve(flags, Map.empty, None), props)
    assertEquals(s.kafka.bootstrapServers, Sourced("file:9093", Source.File(file)))
    assertEquals(s.registry.url.value, "http://flag:8081")
    assertEquals(s.registry.userInfo, Some(Sourced("u:p", Source.File(file))))
    assertEquals(s.kafka.clientProperties, KafkaSettings.defaults + ("bootstrap.servers" -> "file:9093"))
  }

  test("config show masks every secret") {
    val flags = ConnectionFlags(commandConfig = Some(os.Path("/c.properties")), registryUrl = Some("https://reg:hunter2@r:8081"),
      dbUrl = Some("jdbc:postgresql://h/db?user=x&password=hunter2"))
    val props = Map("ssl.keystore.password" -> "hunter2", "ssl.key.password" -> "hunter2", "sasl.jaas.config" -> "x password=\"hunter2\";",
      "basic.auth.user.info" -> "bob:hunter2", "security.protocol" -> "SSL")
    val s = ConnectionSettings.withProperties(ConnectionSettings.resolve(flags, Map("DB_PASSWORD" -> "hunter2"), None), props)
    val rows = ConfigCommand.rows(s)
    assert(!rows.exists(_.value.contains("hunter2")), rows.mkString("\n"))
    assert(rows.exists(r => r.setting == "kafka.security.protocol" && r.value == "SSL"))
    assert(rows.exists(r => r.setting == "registry.user-info" && r.value == "bob:****"))
    assert(rows.exists(r => r.setting == "db.password" && r.value == "****"))
  }
}

package bankops.services.config

import bankops.base.Failure

import bankops.support.IOSuite

class ContextsSuite extends IOSuite {
  private val sandbox = SandboxConnection("localhost:19093", os.Path("/sb/client.properties"), "http://localhost:18081/apis/ccompat/v7",
    "jdbc:postgresql://localhost:15432/balancedb", "bank", "pw-from-sandbox")
  private val prod = ConnectionContext(bootstrapServer = Some("prod:9093"), registryUrl = Some("https://reg.prod"),
    dbUrl = Some("jdbc:postgresql://db.prod/balancedb"), dbPassword = Some(SecretRef.Env("PROD_DB_PASSWORD")))
  private val chosen = ChosenContext("prod", prod, dbPassword = Some("pw-from-context"))

  test("flag beats environment beats context beats sandbox beats default; each named by its source") {
    val env = Map("SCHEMA_REGISTRY_URL" -> "http://env:8081")
    val s = ConnectionSettings.resolve(ConnectionFlags(dbUser = Some("me")), env, Some(sandbox), Some(chosen))
    assertEquals(s.kafka.bootstrapServers, Sourced("prod:9093", Source.Context("prod")))
    assertEquals(s.registry.url, Sourced("http://env:8081", Source.Env("SCHEMA_REGISTRY_URL")))
    assertEquals(s.database.user, Sourced("me", Source.Flag("db-user")))
    assertEquals(s.database.password, Some(Sourced("pw-from-context", Source.Context("prod"))))
    assertEquals(s.kafka.commandConfig, Some(Sourced(sandbox.commandConfig, Source.Sandbox)))
    assertEquals(Source.Context("prod").describe, "context prod")
  }

  test("the sandbox's password is never offered to a database the context names") {
    val s = ConnectionSettings.resolve(ConnectionFlags(), Map.empty, Some(sandbox), Some(chosen.copy(dbPassword = None)))
    assertEquals(s.database.url.source, Source.Context("prod"))
    assertEquals(s.database.password, None)
    val sandboxDb = ConnectionSettings.resolve(ConnectionFlags(), Map.empty, Some(sandbox), Some(ChosenContext("k", ConnectionContext())))
    assertEquals(sandboxDb.database.password.map(_.value), Some("pw-from-sandbox"))
  }

  test("secret references: a variable's name or a file, never both; read when used") {
    val f = os.temp("s3cret\n")
    assertEquals(SecretRef.of("db password", Some("DB_PW"), None), Right(Some(SecretRef.Env("DB_PW"))))
    assert(SecretRef.of("db password", Some("DB_PW"), Some(f)).isLeft)
    // The value is never repeated: it may be the secret itself, passed by mistake.
    assert(SecretRef.of("db password", Some("hunter 2!"), None).left.exists(m =>
        m.contains("not an environment variable name") && !m.contains("hunter")))
    assertEquals(SecretRef.read(SecretRef.File(f), Map.empty), Right("s3cret"))
    assertEquals(SecretRef.read(SecretRef.Env("DB_PW"), Map("DB_PW" -> "x")), Right("x"))
    assertEquals(SecretRef.read(SecretRef.Env("DB_PW"), Map.empty), Left("variable DB_PW is not set"))
    assert(SecretRef.read(SecretRef.File(f / os.up / "missing"), Map.empty).isLeft)
  }

  test("a context refuses passwords written into its URLs") {
    assert(ConnectionContext(registryUrl = Some("https://me:pw@reg:8081/x")).check.isLeft)
    assert(ConnectionContext(dbUrl = Some("jdbc:postgresql://db/x?user=a&password=pw")).check.isLeft)
    assert(ConnectionContext(dbUrl = Some("jdbc:postgresql://db/x?sslkey=/k.pk8&sslpassword=pw")).check.isLeft)
    assert(ConnectionContext(registryUrl = Some("https://reg:8081/path@x"), dbUrl = Some("jdbc:postgresql://db/x")).check.isRight)
  }

  test("the guard parses the URL as its client does: a newline, an encoded name, user info before the host") {
    // A pattern over the text stopped at the newline, and the password was stored in clear.
    assertEquals(ConnectionContext(dbUrl = Some("jdbc:postgresql://db:5432/bank?ssl=true\n&password=hunter2")).check,
      Left("--db-url holds a control character (at character 40); a context keeps none"))
    assertEquals(UrlSecrets.jdbc("jdbc:postgresql://db/bank?ssl=true&pass%77ord=hunter2"), List("password"))
    assertEquals(UrlSecrets.jdbc("jdbc:postgresql://db/bank?SSLPASSWORD=x;password=y"), List("SSLPASSWORD", "password"))
    assertEquals(UrlSecrets.jdbc("jdbc:postgresql://me:pw@db/bank"), List("user:password@ before the host"))
    assertEquals(UrlSecrets.jdbc("jdbc:postgresql://db/bank?user=password"), Nil)
    val e = ConnectionContext(dbUrl = Some("jdbc:postgresql://db/bank?Password=hunter2")).check
    assertEquals(e, Left("--db-url holds a password (Password): a context keeps no secret in clear (use --db-password-env or --db-password-file)"))
    assert(ConnectionContext(registryUrl = Some("https://reg\t:8081")).check.left.exists(_.startsWith("--registry-url holds a control character")))
    assertEquals(ConnectionContext(registryUrl = Some("https://reg:8081/a b")).check, Left("--registry-url is not a URL"))
    assert(ConnectionContext(bootstrapServer = Some("k:9093\u0000")).check.isLeft)
  }

  test("registering sandboxes: each keeps its own context; down --wipe removes only its own") {
    val env = Map("XDG_CONFIG_HOME" -> os.temp.dir().toString)
    val (a, b) = (os.Path("/sb/a"), os.Path("/sb/b"))
    def ctx(d: os.Path) = Some(ConnectionContext(bootstrapServer = Some("localhost:1"), sandboxDir = Some(d)))
    for {
      first <- ContextStore.registerSandbox(env, a, ctx(a))
      second <- ContextStore.registerSandbox(env, b, ctx(b))
      again <- ContextStore.registerSandbox(env, a, ctx(a))
      removed <- ContextStore.registerSandbox(env, b, None)
      // A context someone added for the same directory is theirs: never replaced, never removed.
      _ <- ContextStore.update(env)(cs => Right(cs.updated("dev", ConnectionContext(sandboxDir = Some(b))) -> ()))
      third <- ContextStore.registerSandbox(env, b, ctx(b))
      _ <- ContextStore.registerSandbox(env, b, None)
      left <- ContextStore.read(env)
    } yield {
      assertEquals((first, second, again, removed, third),
        (Some("sandbox"), Some("sandbox-b"), Some("sandbox"), Some("sandbox-b"), Some("sandbox-b")))
      assertEquals(left.contexts.keySet, Set("sandbox", "dev"))
      assertEquals(left.contexts("sandbox").sandboxDir, Some(a))
    }
  }

  test("a second sandbox's context never replaces the first one's: it takes a name of its own") {
    val first = os.Path("/home/me/.bankops/sandbox")
    val other = os.Path("/work/x/.bankops/test sandbox")
    val cs = Contexts(contexts = Map("sandbox" -> ConnectionContext(sandboxDir = Some(first))))
    assertEquals(ContextStore.sandboxName(Contexts(), other), "sandbox")
    assertEquals(ContextStore.sandboxName(cs, other), "sandbox-test-sandbox")
    assertEquals(ContextStore.sandboxName(cs.updated("sandbox-test-sandbox", ConnectionContext()), other), "sandbox-test-sandbox-2")
  }

  test("the file lives under XDG_CONFIG_HOME, else HOME/.config, else nowhere (a test's empty environment)") {
    assertEquals(ContextStore.file(Map("XDG_CONFIG_HOME" -> "/x", "HOME" -> "/h")), Some(os.Path("/x/bankops/contexts.json")))
    assertEquals(ContextStore.file(Map("XDG_CONFIG_HOME" -> "relative", "HOME" -> "/h")), Some(os.Path("/h/.config/bankops/contexts.json")))
    assertEquals(ContextStore.file(Map.empty), None)
  }

  test("update writes a private file atomically; an unknown name lists the known ones; --context beats BANKOPS_CONTEXT beats current") {
    val env = Map("XDG_CONFIG_HOME" -> os.temp.dir().toString)
    val file = ContextStore.file(env).get
    for {
      _ <- ContextStore.update(env)(cs => Right(cs.updated("prod", prod).updated("dev", ConnectionContext()).copy(current = Some("prod")) -> ()))
      read <- ContextStore.read(env)
      refused <- ContextStore.update(env)(_ => Left("no")).attempt
    } yield {
      assertEquals(os.perms(file).toString, "rw-------")
      assertEquals(os.list(file / os.up).map(_.last), IndexedSeq("contexts.json"))
      assertEquals(read.contexts("prod"), prod)
      assertEquals(refused, Left(Failure.BadInput("no")))
      assertEquals(ContextStore.chosen(None, Map.empty, read).map(_.map(_._1)), Right(Some("prod")))
      assertEquals(ContextStore.chosen(None, Map("BANKOPS_CONTEXT" -> "dev"), read).map(_.map(_._1)), Right(Some("dev")))
      assertEquals(ContextStore.chosen(Some("prod"), Map("BANKOPS_CONTEXT" -> "dev"), read).map(_.map(_._1)), Right(Some("prod")))
      assertEquals(ContextStore.chosen(Some("qa"), Map.empty, read), Left("unknown context 'qa' (known: dev, prod)"))
      assertEquals(read.removed("prod").current, None)
    }
  }

  test("a contexts file that does not parse is exit 2 naming it") {
    val env = Map("XDG_CONFIG_HOME" -> os.temp.dir().toString)
    val file = ContextStore.file(env).get
    os.write(file, "{not json", createFolders = true)
    ContextStore.read(env).attempt.map(r => assert(r.left.exists(e => e.isInstanceOf[Failure.BadInput] && e.getMessage.contains(file.toString))))
  }

}

package bankops.services.config

import com.monovore.decline.Command

import bankops.flags.{ConnectionOpts, ContextFlags}
import bankops.jobs.config.ConfigCommand
import bankops.jobs.context.ContextCommand

/** The table of connection settings ([[Setting.all]]) and the views read from it agree; a row added to the table is
  * in each view by that alone.
  */
class SettingSuite extends munit.FunSuite {
  private val secret = "s3cret-SettingSuite"

  private def resolve(flags: ConnectionFlags = ConnectionFlags(), env: Map[String, String] = Map.empty,
                      sandbox: Option[SandboxConnection] = None, context: Option[ChosenContext] = None) =
    ConnectionSettings.resolve(flags, env, sandbox, context)

  private def parse[A](opts: com.monovore.decline.Opts[A], args: String*): A =
    Command("t", "")(opts).parse(args.toList, Map.empty).fold(h => fail(h.errors.mkString("; ")), identity)

  /** A value for `s` from its variable: a file setting gets a path, a secret holds [[secret]]. */
  private def sample(s: Setting[_]): String =
    if (s.kind.isFile) s"/etc/bank/${s.name}" else if (s.secret.nonEmpty) s"user:$secret" else s"text-${s.name}"

  test("names, keys and variables are each one setting's; Variables are the table's and the context's") {
    for (field <- List[Setting[_] => String](_.key, _.name, _.variable))
      assertEquals(Setting.all.map(field).distinct.size, Setting.all.size)
    assertEquals(ConnectionFlags.Variables, Setting.all.map(_.variable) :+ ContextStore.Variable)
  }

  test("each flag's help names its variable, and the flag sets exactly its setting") {
    for (s <- Setting.all; f <- s.flag) {
      assert(f.help.contains(s"env ${s.variable}"), s.name)
      val flags = parse(ConnectionOpts.opts, s"--${s.name}", sample(s))
      val shown = ConfigCommand.rows(resolve(flags)).filter(_.source.startsWith("flag "))
      assertEquals(shown.map(r => r.setting -> r.source), List(s.key -> s"flag --${s.name}"))
    }
  }

  test("each variable sets exactly its setting; config show lists every setting once, in the table's order") {
    for (s <- Setting.all) {
      val rows = ConfigCommand.rows(resolve(env = Map(s.variable -> sample(s))))
      assertEquals(rows.map(_.setting), Setting.all.map(_.key))
      assertEquals(rows.filter(_.source.startsWith("env ")).map(_.setting), List(s.key), s.variable)
    }
  }

  test("every secret is masked in config show, remembered for redaction, held by a context only by reference") {
    val secrets = Setting.all.filter(_.secret.nonEmpty)
    assertEquals(secrets.map(_.key), List("registry.user-info", "db.password"))
    val settings = resolve(env = Setting.all.map(s => s.variable -> sample(s)).toMap)
    val rows = ConfigCommand.rows(settings)
    assert(!rows.exists(_.value.contains(secret)), rows.mkString("\n"))
    assert(Secrets.values(settings).nonEmpty && Secrets.values(settings).forall(_.contains(secret)), Secrets.values(settings))
    assertEquals(Secrets.values(settings).size, secrets.size)
    for (s <- secrets) {
      assert(s.context.isInstanceOf[Setting.InContext.ByReference], s.key)
      assertEquals(s.default, None, s.key)
      // A secret's server is named by a URL that always resolves to something, and is not itself a secret.
      val url = s.secret.get.server.url
      assert(url.default.nonEmpty && url.secret.isEmpty, url.key)
    }
  }

  test("a password written into a URL is masked in config show") {
    val urls = Setting.all.filter(_.visibility == Setting.Visibility.Url)
    assertEquals(urls.map(_.key), List("registry.url", "db.url"))
    val rows = ConfigCommand.rows(resolve(env = urls.map(_.variable -> s"https://u:$secret@h:1/x?password=$secret").toMap))
    assertEquals(rows.filter(_.source.startsWith("env ")).map(_.value), List.fill(2)("https://u:****@h:1/x?password=****"))
  }

  test("context add sets each setting a context holds in clear, and context show lists it; the check names its flag") {
    for (s <- Setting.all if s.context.isInstanceOf[Setting.InContext.Clear[_]]) {
      val c = parse(ContextFlags.opts, s"--${s.name}", sample(s))
      assertEquals(s.clearText(c), Some(sample(s)))
      assertEquals(ContextCommand.rows(c), List(s.name -> sample(s)))
      val withTab = Command("t", "")(ContextFlags.opts).parse(List(s"--${s.name}", sample(s) + "\t"), Map.empty)
      assert(withTab.left.exists(_.errors.exists(_.startsWith(s"--${s.name} holds a control character"))), withTab)
    }
    for (s <- Setting.all if s.context.isInstanceOf[Setting.InContext.ByReference]) {
      val missing = os.temp.dir() / "missing"
      val c = parse(ContextFlags.opts, s"--${s.name}-file", missing.toString)
      assertEquals(c.missingFiles, List(s"--${s.name}-file $missing is not a file"))
      assertEquals(ContextCommand.rows(c), List(s.name -> s"file $missing"))
    }
  }

  test("adding a setting's row is enough for it to appear in each view") {
    val missing = os.temp.dir() / "missing"
    val token: Setting[String] = Setting(
      key = "registry.token", name = "registry-token", variable = "SCHEMA_REGISTRY_TOKEN", kind = Setting.Kind.Text,
      flag = None, context = Setting.InContext.ByReference(_ => Some(SecretRef.File(missing)), _ => Some("ctx-token")),
      visibility = Setting.Visibility.Secret(Setting.Server(Setting.RegistryUrl, ConnectionSettings.httpServer), _ => Secrets.Mask, identity),
      resolved = _ => Some(Sourced(secret, Source.Env("SCHEMA_REGISTRY_TOKEN"))))
    // A new row has a field of its own in ConnectionContext; this one borrows the sandbox directory's last name.
    val clientId: Setting[String] = Setting(
      key = "kafka.client-id", name = "client-id", variable = "KAFKA_CLIENT_ID", kind = Setting.Kind.Text, flag = None,
      context = Setting.InContext.Clear(_.sandboxDir.map(_.last)), sandbox = s => Some(s"sandbox-${s.dbUser}"), default = Some("bankops"),
      resolved = _ => Some(Sourced("id", Source.Default)))
    val table = Setting.all ++ List(token, clientId)

    assertEquals(ConnectionFlags.variables(table).takeRight(3), List("SCHEMA_REGISTRY_TOKEN", "KAFKA_CLIENT_ID", ContextStore.Variable))
    val rows = ConfigCommand.rows(resolve(), table)
    assertEquals(
      rows.takeRight(2).map(r => (r.setting, r.value, r.source)),
      List(("registry.token", "****", "env SCHEMA_REGISTRY_TOKEN"), ("kafka.client-id", "id", "default")))
    assertEquals(Secrets.values(resolve(), table), List(secret))

    // Resolution: environment, then context, then sandbox, then default; a context's secret only to its own registry.
    val sandbox = SandboxConnection("localhost:1", os.Path("/sb/c.properties"), "http://localhost:2", "jdbc:postgresql://localhost:3/b", "bank", "pw")
    val prod = ChosenContext("prod", ConnectionContext(registryUrl = Some("https://reg.prod"), sandboxDir = Some(os.Path("/x/ops"))))
    def value[A](s: Setting[A], flags: ConnectionFlags = ConnectionFlags(), env: Map[String, String] = Map.empty,
                 context: Option[ChosenContext] = None) = ConnectionSettings.value(s, flags, env, Some(sandbox), context)
    assertEquals(value(clientId), Some(Sourced("sandbox-bank", Source.Sandbox)))
    assertEquals(ConnectionSettings.value(clientId, ConnectionFlags(), Map.empty, None, None), Some(Sourced("bankops", Source.Default)))
    assertEquals(value(clientId, context = Some(prod)), Some(Sourced("ops", Source.Context("prod"))))
    assertEquals(value(clientId, env = Map("KAFKA_CLIENT_ID" -> "e"), context = Some(prod)), Some(Sourced("e", Source.Env("KAFKA_CLIENT_ID"))))
    assertEquals(value(token, context = Some(prod)), Some(Sourced("ctx-token", Source.Context("prod"))))
    assertEquals(value(token, flags = ConnectionFlags(registryUrl = Some("http://evil:8081")), context = Some(prod)), None)
    assertEquals(value(token, env = Map("SCHEMA_REGISTRY_TOKEN" -> "t", "SCHEMA_REGISTRY_URL" -> "http://elsewhere")).map(_.value), Some("t"))

    // Contexts: the check names its flag, its secret's file is looked for, context show lists both.
    val tab = ConnectionContext(sandboxDir = Some(os.Path("/x/a\tb")))
    assertEquals(tab.checkedWith(table), Left("--client-id holds a control character (at character 2); a context keeps none"))
    assertEquals(ConnectionContext().missingFilesWith(table), List(s"--registry-token-file $missing is not a file"))
    assertEquals(ContextCommand.rows(prod.context, table),
      List("registry-url" -> "https://reg.prod", "registry-token" -> s"file $missing", "client-id" -> "ops", "sandbox-dir" -> "/x/ops"))
  }
}

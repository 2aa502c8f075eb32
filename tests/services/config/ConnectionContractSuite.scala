package bankops.services.config

import cats.effect.IO
import io.circe.parser.parse

import bankops.support.{IOSuite, Repo, TestShell}

/** The connection settings are described in several places (the flags, their environment variables, `config show`,
  * the masking of secrets, the variables a sandbox's own processes never inherit): this suite ties them together, so a
  * setting added to one and not the others fails here.
  */
class ConnectionContractSuite extends IOSuite {
  private val secret = "s3cret-ConnectionContract"
  private lazy val files = {
    val dir = os.temp.dir(prefix = "bankops-contract")
    os.write(dir / "client.properties", "security.protocol=PLAINTEXT\n")
    os.write(dir / "ca.pem", "")
    dir
  }

  /** Each setting `config show` reports: flag, variable, a value, and the setting it lands in. */
  private final case class Setting(flag: Option[String], variable: String, value: String, setting: String)
  private lazy val settings = List(
    Setting(Some("bootstrap-server"), "KAFKA_BROKERS", "h:1", "kafka.bootstrap.servers"),
    Setting(Some("command-config"), "BANKOPS_COMMAND_CONFIG", (files / "client.properties").toString, "kafka.command-config"),
    Setting(Some("registry-url"), "SCHEMA_REGISTRY_URL", "http://r:1", "registry.url"),
    Setting(Some("registry-user-info"), "SCHEMA_REGISTRY_USER_INFO", s"u:$secret", "registry.user-info"),
    Setting(Some("registry-ca"), "SCHEMA_REGISTRY_CA_LOCATION", (files / "ca.pem").toString, "registry.ca"),
    Setting(Some("db-url"), "DB_URL", "jdbc:postgresql://h:1/x", "db.url"),
    Setting(Some("db-user"), "DB_USER", "u", "db.user"),
    // The password has no flag: a flag's value would be seen in the process list.
    Setting(None, "DB_PASSWORD", secret, "db.password")
  )

  /** `config show -o json` as (setting -> (value, source)), with no context, in an empty environment but `env`. */
  private def show(env: Map[String, String], flags: List[String] = Nil): IO[Map[String, (String, String)]] =
    TestShell.run(List("config", "show", "-o", "json", "--no-context") ++ flags, env, Repo.root).map { r =>
      assertEquals(r.code, 0, r.err)
      assert(!(r.out + r.err).contains(secret), s"a secret shown:\n${r.out}")
      r.outLines.map(l => parse(l).flatMap(_.as[Map[String, String]]).fold(throw _, identity)).map(m =>
        m("setting") -> (m("value") -> m("source"))).toMap
    }

  test("the variables the connection flags' help names are exactly those a sandbox's own processes are kept from (and its directory)") {
    TestShell.run(List("inspect", "--help"), Map.empty, Repo.root).map { r =>
      val named = "env ([A-Z_]+)".r.findAllMatchIn(r.out + r.err).map(_.group(1)).toSet
      assertEquals(named, ConnectionFlags.Variables.toSet + "BANKOPS_SANDBOX_DIR")
    }
  }

  test("each variable sets exactly its setting in config show, named as the source; secrets masked") {
    val variables = settings.map(_.variable).toSet
    assertEquals(ConnectionFlags.Variables.toSet - ContextStore.Variable, variables, "a variable config show does not report, or the reverse")
    settings.foldLeft(IO.unit) { (done, s) =>
      done >> show(Map(s.variable -> s.value)).map { shown =>
        val fromEnv = shown.collect { case (name, (_, source)) if source.startsWith("env ") => name -> source }
        assertEquals(fromEnv, Map(s.setting -> s"env ${s.variable}"))
      }
    }
  }

  test("each flag sets the same setting as its variable, and wins over it") {
    settings.flatMap(s => s.flag.map(s -> _)).foldLeft(IO.unit) { case (done, (s, flag)) =>
      done >> show(Map(s.variable -> s.value), List(s"--$flag", s.value)).map { shown =>
        assertEquals(shown.get(s.setting).map(_._2), Some(s"flag --$flag"))
        assert(!shown.values.exists(_._2.startsWith("env ")), shown)
      }
    }
  }
}

package bankops.services.config

import cats.effect.IO
import io.circe.generic.semiauto._
import io.circe.syntax._
import io.circe.{Decoder, Encoder}

import bankops.base.{AtomicFile, Failure, JsonInput, TextFile}

/** The contexts file: every named context and the one `context use` chose. */
final case class Contexts(current: Option[String] = None, contexts: Map[String, ConnectionContext] = Map.empty) {
  def names: List[String] = contexts.keys.toList.sorted

  /** `name`'s context, or why not: the known names, so a typo is seen at once. */
  def named(name: String): Either[String, ConnectionContext] =
    contexts.get(name).toRight(
      if (contexts.isEmpty) s"unknown context '$name': no context is defined (add one with `bankops context add`)"
      else s"unknown context '$name' (known: ${names.mkString(", ")})")

  def updated(name: String, context: ConnectionContext): Contexts = copy(contexts = contexts.updated(name, context))

  /** Removing the current context leaves none chosen rather than a name that no longer resolves. */
  def removed(name: String): Contexts = Contexts(current.filterNot(_ == name), contexts - name)
}

object Contexts {
  implicit val encoder: Encoder[Contexts] = deriveEncoder[Contexts].mapJson(_.dropNullValues)
  implicit val decoder: Decoder[Contexts] = deriveDecoder
}

/** Where contexts are kept: `$XDG_CONFIG_HOME/bankops/contexts.json` (default `~/.config/...`), readable by its owner
  * only, replaced whole on every change. Located from the job's environment alone, so a test's never reaches a user's.
  */
object ContextStore {
  val Variable = "BANKOPS_CONTEXT"
  val FileName = "contexts.json"
  val SandboxName = "sandbox"

  /** The context a running sandbox registers as [[SandboxName]]: its addresses, its command-config and its password
    * file by reference, and its directory.
    */
  def sandboxContext(dir: os.Path, connection: SandboxConnection, dbPasswordFile: os.Path): ConnectionContext =
    ConnectionContext(bootstrapServer = Some(connection.bootstrapServers), commandConfig = Some(connection.commandConfig),
      registryUrl = Some(connection.registryUrl), dbUrl = Some(connection.dbUrl), dbUser = Some(connection.dbUser),
      dbPassword = Some(SecretRef.File(dbPasswordFile)), sandboxDir = Some(dir))

  /** Registers (`Some`) or unregisters (`None`) the sandbox in `dir`. A context is only ever replaced or removed when it
    * names `dir`: the first sandbox takes [[SandboxName]], another one (another `--sandbox-dir`) a name of its own,
    * [[sandboxName]]. Nothing when there is no configuration directory. Returns the name changed, if any.
    */
  def registerSandbox(env: Map[String, String], dir: os.Path, context: Option[ConnectionContext]): IO[Option[String]] = {
    // Only names a sandbox gives itself: a context someone added with --sandbox-dir is theirs, never replaced or removed.
    def ours(cs: Contexts) =
      cs.names.filter(n => n == SandboxName || n.startsWith(s"$SandboxName-")).find(n => cs.contexts(n).sandboxDir.contains(dir))
    (file(env), context) match {
      case (None, _) => IO.pure(None)
      case (_, Some(c)) => update(env) { cs =>
          val name = ours(cs).getOrElse(sandboxName(cs, dir))
          Right(cs.updated(name, c) -> Some(name))
        }
      case (_, None) => read(env).map(ours).flatMap(_.fold(IO.pure(Option.empty[String]))(n =>
            update(env)(cs => Right(cs.removed(n) -> Some(n)))))
    }
  }

  /** [[SandboxName]] when free, else `sandbox-DIRNAME` (then with a number) for a sandbox of another directory. */
  def sandboxName(cs: Contexts, dir: os.Path): String = {
    val base = s"$SandboxName-${dir.last.replaceAll("[^A-Za-z0-9._-]", "-")}".take(60)
    (Iterator.single(SandboxName) ++ Iterator.single(base) ++ Iterator.from(2).map(i => s"$base-$i")).find(n => !cs.contexts.contains(n)).get
  }

  def file(env: Map[String, String]): Option[os.Path] = {
    def absolute(v: String) = scala.util.Try(os.Path(v)).toOption
    env.get("XDG_CONFIG_HOME").filter(_.nonEmpty).flatMap(absolute)
      .orElse(env.get("HOME").filter(_.nonEmpty).flatMap(absolute).map(_ / ".config"))
      .map(_ / "bankops" / FileName)
  }

  /** The contexts; none when there is no file (or no config directory). A file that does not parse is exit 2. */
  def read(env: Map[String, String]): IO[Contexts] = IO.blocking {
    file(env).filter(os.exists(_)) match {
      case None => Contexts()
      case Some(f) =>
        // Parse errors name line and column only: the file holds connection settings, never to be quoted.
        TextFile.readPrivate(f).flatMap(t => JsonInput.decodeQuiet[Contexts](t).left.map(e => s"$f: not a contexts file ($e)"))
          .fold(e => throw Failure.BadInput(e), identity)
    }
  }

  /** Reads, changes and writes the contexts: written to a private file beside it, then moved over it. */
  def update[A](env: Map[String, String])(change: Contexts => Either[String, (Contexts, A)]): IO[A] =
    IO.fromOption(file(env))(Failure.BadInput("no configuration directory for contexts: set XDG_CONFIG_HOME or HOME")).flatMap { f =>
      read(env).flatMap(cs => IO.fromEither(change(cs).left.map(Failure.BadInput(_)))).flatMap { case (changed, a) =>
        IO.blocking(write(f, changed)).as(a)
      }
    }

  private def write(f: os.Path, contexts: Contexts): Unit = {
    if (!os.exists(f / os.up)) os.makeDir.all(f / os.up, perms = "rwx------")
    AtomicFile.write(f, contexts.asJson.spaces2 + "\n")
  }

  /** The context a job uses: `--context`, else `BANKOPS_CONTEXT`, else the current one; None when none is chosen. */
  def chosen(flag: Option[String], env: Map[String, String], contexts: Contexts): Either[String, Option[(String, ConnectionContext)]] =
    flag.orElse(env.get(Variable).filter(_.nonEmpty)).orElse(contexts.current) match {
      case None => Right(None)
      case Some(name) => contexts.named(name).map(c => Some(name -> c))
    }
}

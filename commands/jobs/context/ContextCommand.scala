package bankops.jobs.context

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import bankops.base.{Failure, Job, OutputFormat, Shell, Table}
import bankops.services.config.{ConnectionContext, ContextFlags, ContextStore, Secrets}

/** `bankops context add|list|use|show|remove`: named cluster settings, kept in the user's config directory. */
object ContextCommand {

  private val Name = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}".r

  private val nameArg: Opts[String] = Opts.argument[String]("NAME").mapValidated {
    case n @ Name() => n.validNel
    case n => s"context name '$n' must be letters, digits, '.', '_' or '-' (up to 64, starting with a letter or digit)".invalidNel
  }

  /** Pure: a context as setting/value rows, secrets by their reference only, URLs masked. */
  def rows(c: ConnectionContext): List[(String, String)] = List(
    "bootstrap-server" -> c.bootstrapServer,
    "command-config" -> c.commandConfig.map(_.toString),
    "registry-url" -> c.registryUrl.map(Secrets.maskUrl),
    "registry-user-info" -> c.registryUserInfo.map(_.describe),
    "registry-ca" -> c.registryCa.map(_.toString),
    "db-url" -> c.dbUrl.map(Secrets.maskUrl),
    "db-user" -> c.dbUser,
    "db-password" -> c.dbPassword.map(_.describe),
    "sandbox-dir" -> c.sandboxDir.map(_.toString)
  ).collect { case (k, Some(v)) => k -> v }

  private def settingsJson(c: ConnectionContext): Json = Json.obj(rows(c).map { case (k, v) => k -> Json.fromString(v) }: _*)

  private def saved(shell: Shell, line: String): IO[ExitCode] =
    shell.info(s"$line (${ContextStore.file(shell.env).getOrElse("")})").as(ExitCode.Success)

  private val add = Opts.subcommand("add", "Add (or with --replace, replace) a named context: the connection flags every job takes.")(
    (nameArg, ContextFlags.opts, Opts.flag("replace", "Replace a context of that name.").orFalse).mapN { (name, context, replace) => (shell: Shell) =>
      IO.blocking(context.missingFiles).flatMap {
        case Nil => IO.unit
        case missing => IO.raiseError(Failure.BadInput(missing.mkString("; ")))
      } >> ContextStore.update(shell.env) { cs =>
        if (cs.contexts.contains(name) && !replace) Left(s"context '$name' exists: remove it first, or add it again with --replace")
        else Right(cs.updated(name, context) -> ())
      } >> saved(shell, s"context $name ${if (replace) "saved" else "added"}")
    }
  )

  private val list = Opts.subcommand("list", "Every context, the current one marked *.")(OutputFormat.opts.map { output => (shell: Shell) =>
    ContextStore.read(shell.env).flatMap { cs =>
      val chosen = shell.env.get(ContextStore.Variable).filter(_.nonEmpty).orElse(cs.current)
      val entries = cs.names.map(n => (n, chosen.contains(n), cs.contexts(n)))
      OutputFormat.emit(OutputFormat.resolve(output, shell), shell)(
        json = entries.map { case (n, cur, c) =>
          Json.obj("name" -> Json.fromString(n), "current" -> Json.fromBoolean(cur), "settings" -> settingsJson(c))
        },
        table = Table.render(List("CURRENT", "NAME", "KAFKA", "REGISTRY", "DATABASE"),
          entries.map { case (n, cur, c) =>
            List(if (cur) "*" else "", n, c.bootstrapServer.getOrElse(""), c.registryUrl.fold("")(Secrets.maskUrl), c.dbUrl.fold("")(Secrets.maskUrl))
          })
      ).as(ExitCode.Success)
    }
  })

  private val use = Opts.subcommand("use",
    "Make a context the current one: every job then uses it unless --context or BANKOPS_CONTEXT says otherwise.")(
    nameArg.map { name => (shell: Shell) =>
      ContextStore.update(shell.env)(cs => cs.named(name).map(_ => cs.copy(current = Some(name)) -> ())) >> saved(shell, s"using context $name")
    }
  )

  private val show = Opts.subcommand("show", "A context's settings (default: the chosen one), secrets only by reference.")(
    (nameArg.orNone, OutputFormat.opts).mapN { (name, output) => (shell: Shell) =>
      ContextStore.read(shell.env).flatMap { cs =>
        IO.fromEither(ContextStore.chosen(name, shell.env, cs).flatMap(_.toRight("no context is chosen: name one, or `bankops context use NAME`"))
            .left.map(Failure.BadInput(_))).flatMap { case (n, c) =>
          OutputFormat.emit(OutputFormat.resolve(output, shell), shell)(
            json = List(Json.obj("name" -> Json.fromString(n), "settings" -> settingsJson(c))),
            table = s"context $n\n" + Table.render(List("SETTING", "VALUE"), rows(c).map { case (k, v) => List(k, v) })
          ) >> c.check.swap.toOption.traverse_(why =>
            shell.warn(s"context $n: $why; it was written by hand or by an older bankops, and jobs refuse it until it is fixed"))
            .as(ExitCode.Success)
        }
      }
    }
  )

  private val remove = Opts.subcommand("remove", "Delete a context (when it is the current one, none is current afterwards).")(
    nameArg.map { name => (shell: Shell) =>
      ContextStore.update(shell.env)(cs => cs.named(name).map(_ => cs.removed(name) -> ())) >> saved(shell, s"context $name removed")
    }
  )

  val job: Job.Actions = Job.actions(
    "context",
    "Named cluster settings: add, list, use, show, remove; every job takes --context NAME (or BANKOPS_CONTEXT).",
    "bankops context add prod --bootstrap-server kafka:9093 --command-config prod.properties --db-password-env DB_PASSWORD",
    add orElse list orElse use orElse show orElse remove
  )
}

package bankops.jobs.context

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import bankops.base.{Exit, Failure, Job, OutputFormat, Rendered, Shell, Shown, Table}
import bankops.flags.ContextFlags
import bankops.services.config.{ConnectionContext, ContextStore, Secrets, Setting}

/** `bankops context add|list|use|show|remove`: named cluster settings, kept in the user's config directory. */
object ContextCommand {

  private val Name = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}".r

  private val nameArg: Opts[String] = Opts.argument[String]("NAME").mapValidated {
    case n @ Name() => n.validNel
    case n => s"context name '$n' must be letters, digits, '.', '_' or '-' (up to 64, starting with a letter or digit)".invalidNel
  }

  /** Pure: a context as setting/value rows, secrets by their reference only, URLs masked; then its sandbox directory. */
  def rows(c: ConnectionContext, table: List[Setting[_]] = Setting.all): List[(String, String)] =
    table.flatMap(s => s.inContext(c).map(s.name -> _)) ++ c.sandboxDir.map("sandbox-dir" -> _.toString)

  private def settingsJson(c: ConnectionContext): Json = Json.obj(rows(c).map { case (k, v) => k -> Json.fromString(v) }: _*)

  /** A change to the contexts file: what was done, said with the file it was written to. */
  final case class Saved(line: String, file: String)

  private def saved(shell: Shell, line: String): Saved = Saved(line, ContextStore.file(shell.env).fold("")(_.toString))

  private def renderSaved(s: Saved): Shown = Shown(None, Rendered.note(s"${s.line} (${s.file})"), Exit.Ok)

  final case class AddOptions(name: String, context: ConnectionContext, replace: Boolean)

  private val add = Job.Sub("add", "Add (or with --replace, replace) a named context: the connection flags every job takes.",
    (nameArg, ContextFlags.opts, Opts.flag("replace", "Replace a context of that name.").orFalse).mapN(AddOptions.apply))(
    (o, shell) =>
      IO.blocking(o.context.missingFiles).flatMap {
        case Nil => IO.unit
        case missing => IO.raiseError(Failure.BadInput(missing.mkString("; ")))
      } >> ContextStore.update(shell.env) { cs =>
        if (cs.contexts.contains(o.name) && !o.replace) Left(s"context '${o.name}' exists: remove it first, or add it again with --replace")
        else Right(cs.updated(o.name, o.context) -> ())
      }.as(saved(shell, s"context ${o.name} ${if (o.replace) "saved" else "added"}")),
    (_, saved: Saved) => renderSaved(saved))

  /** One context of the list: its name, whether it is the one jobs use, its settings. */
  final case class Entry(name: String, current: Boolean, context: ConnectionContext)

  private def listed(shell: Shell): IO[List[Entry]] =
    ContextStore.read(shell.env).map { cs =>
      val chosen = shell.env.get(ContextStore.Variable).filter(_.nonEmpty).orElse(cs.current)
      cs.names.map(n => Entry(n, chosen.contains(n), cs.contexts(n)))
    }

  private def renderList(output: Option[OutputFormat], entries: List[Entry]): Shown =
    Shown(output,
      Rendered.result(
        entries.map(e =>
          Json.obj("name" -> Json.fromString(e.name), "current" -> Json.fromBoolean(e.current), "settings" -> settingsJson(e.context))),
        Table.render(List("CURRENT", "NAME", "KAFKA", "REGISTRY", "DATABASE"),
          entries.map { e =>
            val c = e.context
            List(if (e.current) "*" else "", e.name, c.bootstrapServer.getOrElse(""), c.registryUrl.fold("")(Secrets.maskUrl),
              c.dbUrl.fold("")(Secrets.maskUrl))
          })),
      Exit.Ok)

  private val list = Job.Sub("list", "Every context, the current one marked *.", OutputFormat.opts)((_, shell) => listed(shell), renderList)

  private val use = Job.Sub("use", "Make a context the current one: every job then uses it unless --context or BANKOPS_CONTEXT says otherwise.",
    nameArg)((name, shell) =>
      ContextStore.update(shell.env)(cs => cs.named(name).map(_ => cs.copy(current = Some(name)) -> ())).as(saved(shell, s"using context $name")),
    (_, saved: Saved) => renderSaved(saved))

  final case class ShowOptions(name: Option[String], output: Option[OutputFormat])

  /** A context by its name. */
  final case class Named(name: String, context: ConnectionContext)

  private def chosen(o: ShowOptions, shell: Shell): IO[Named] =
    ContextStore.read(shell.env).flatMap { cs =>
      IO.fromEither(ContextStore.chosen(o.name, shell.env, cs).flatMap(_.toRight("no context is chosen: name one, or `bankops context use NAME`"))
          .left.map(Failure.BadInput(_))).map { case (n, c) => Named(n, c) }
    }

  private def renderShow(o: ShowOptions, e: Named): Shown =
    Shown(o.output,
      Rendered.result(List(Json.obj("name" -> Json.fromString(e.name), "settings" -> settingsJson(e.context))),
        s"context ${e.name}\n" + Table.render(List("SETTING", "VALUE"), rows(e.context).map { case (k, v) => List(k, v) })) ++
        Rendered.all(e.context.check.swap.toOption.toList.map(why =>
            Rendered.warning(s"context ${e.name}: $why; it was written by hand or by an older bankops, and jobs refuse it until it is fixed"))),
      Exit.Ok)

  private val show = Job.Sub("show", "A context's settings (default: the chosen one), secrets only by reference.",
    (nameArg.orNone, OutputFormat.opts).mapN(ShowOptions.apply))(chosen, renderShow)

  private val remove = Job.Sub("remove", "Delete a context (when it is the current one, none is current afterwards).", nameArg)((name, shell) =>
      ContextStore.update(shell.env)(cs => cs.named(name).map(_ => cs.removed(name) -> ())).as(saved(shell, s"context $name removed")),
    (_, saved: Saved) => renderSaved(saved))

  val job: Job.Of = Job.of(
    "context",
    "Named cluster settings: add, list, use, show, remove; every job takes --context NAME (or BANKOPS_CONTEXT).",
    "bankops context add prod --bootstrap-server kafka:9093 --command-config prod.properties --db-password-env DB_PASSWORD"
  )(add.chosen, list.chosen, use.chosen, show.chosen, remove.chosen)
}

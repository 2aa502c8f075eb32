package bankops.jobs.config

import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import bankops.base.{Exit, Job, OutputFormat, Rendered, Shown, Table}
import bankops.flags.ConnectionOpts
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections, Secrets, Setting, Source}

/** `bankops config show`: the effective settings and where each came from, secrets masked. */
object ConfigCommand {

  final case class Row(setting: String, value: String, source: String)

  /** Pure: the rows to show, with every secret already masked: a row per setting of `table`, as it masks it, and
    * after the command-config the file's properties, its secret keys masked.
    */
  def rows(s: ConnectionSettings, table: List[Setting[_]] = Setting.all): List[Row] = {
    val file = s.kafka.commandConfig.map(c => Source.File(c.value).describe).getOrElse("")
    val properties = s.kafka.properties.toList.sortBy(_._1).collect {
      case (key, value) if key != "bootstrap.servers" => Row(s"kafka.$key", Secrets.maskProperty(key, value), file)
    }
    table.flatMap { setting =>
      val row = setting.shown(s).fold(Row(setting.key, "(not set)", ""))(v => Row(setting.key, v.value, v.source.describe))
      row :: (if (setting == Setting.CommandConfig) properties else Nil)
    }
  }

  final case class Options(flags: ConnectionFlags, output: Option[OutputFormat])

  /** The one renderer: a row per setting, secrets masked. */
  def render(o: Options, rs: List[Row]): Shown =
    Shown(o.output,
      Rendered.result(
        rs.map(r => Json.obj("setting" -> Json.fromString(r.setting), "value" -> Json.fromString(r.value), "source" -> Json.fromString(r.source))),
        Table.render(List("SETTING", "VALUE", "SOURCE"), rs.map(r => List(r.setting, r.value, r.source)))),
      Exit.Ok)

  val job: Job[Options, List[Row]] = Job(
    "config",
    "Show the effective connection settings and where each came from (secrets masked).",
    "bankops config show --output json",
    Opts.subcommand("show", "Print each connection setting, its value and its source: flag, env, context, file, sandbox or default.")(
      (ConnectionOpts.opts, OutputFormat.opts).mapN(Options.apply))
  )((o, shell) => Connections.load(o.flags, shell, checked = false).map(rows(_)), render)
}

package bankops.jobs.config

import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import bankops.base.{Exit, Job, OutputFormat, Rendered, Shown, Table}
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections, Secrets, Source, Sourced}

/** `bankops config show`: the effective settings and where each came from, secrets masked. */
object ConfigCommand {

  final case class Row(setting: String, value: String, source: String)

  /** Pure: the rows to show, with every secret already masked. */
  def rows(s: ConnectionSettings): List[Row] = {
    def row[A](name: String, v: Sourced[A], show: A => String = (a: A) => a.toString) = Row(name, show(v.value), v.source.describe)
    val notSet = (name: String) => Row(name, "(not set)", "")
    val k = s.kafka
    val file = k.commandConfig.map(c => Source.File(c.value).describe).getOrElse("")
    List(row("kafka.bootstrap.servers", k.bootstrapServers)) ++
      List(k.commandConfig.fold(notSet("kafka.command-config"))(row("kafka.command-config", _))) ++
      k.properties.toList.sortBy(_._1).collect {
        case (key, value) if key != "bootstrap.servers" => Row(s"kafka.$key", Secrets.maskProperty(key, value), file)
      } ++
      List(
        row("registry.url", s.registry.url, Secrets.maskUrl),
        s.registry.userInfo.fold(notSet("registry.user-info"))(row("registry.user-info", _, Secrets.maskUserInfo)),
        s.registry.caFile.fold(notSet("registry.ca"))(row("registry.ca", _)),
        row("db.url", s.database.url, Secrets.maskUrl),
        row("db.user", s.database.user),
        s.database.password.fold(notSet("db.password"))(row("db.password", _, (_: String) => Secrets.Mask))
      )
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
      (ConnectionFlags.opts, OutputFormat.opts).mapN(Options.apply))
  )((o, shell) => Connections.load(o.flags, shell, checked = false).map(rows), render)
}

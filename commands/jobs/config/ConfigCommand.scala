package bankops.jobs.config

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import bankops.base.{Job, OutputFormat, Shell, Table}
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

  private def show(flags: ConnectionFlags, output: Option[OutputFormat])(shell: Shell): IO[ExitCode] =
    Connections.load(flags, shell, checked = false).flatMap { settings =>
      val rs = rows(settings)
      OutputFormat.emit(OutputFormat.resolve(output, shell), shell)(
        json = rs.map(r =>
          Json.obj("setting" -> Json.fromString(r.setting), "value" -> Json.fromString(r.value), "source" -> Json.fromString(r.source))),
        table = Table.render(List("SETTING", "VALUE", "SOURCE"), rs.map(r => List(r.setting, r.value, r.source))))
    }.as(ExitCode.Success)

  val job: Job.Actions = Job.actions(
    "config",
    "Show the effective connection settings and where each came from (secrets masked).",
    "bankops config show --output json",
    Opts.subcommand("show", "Print each connection setting, its value and its source: flag, env, context, file, sandbox or default.")(
      (ConnectionFlags.opts, OutputFormat.opts).mapN((f, o) => show(f, o) _)
    )
  )
}

package bankops.base

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.{Argument, Opts}

/** How results are printed: tables for people, JSON lines for machines. */
sealed trait OutputFormat
object OutputFormat {
  case object Table extends OutputFormat
  case object Json extends OutputFormat

  implicit val argument: Argument[OutputFormat] = Flags.argument("table|json") {
    case "table" => Right(Table)
    case "json" => Right(Json)
    case other => Left(s"must be table or json, not '$other'")
  }

  /** `--output table|json`; without it, a table on a terminal and JSON lines elsewhere. */
  val opts: Opts[Option[OutputFormat]] =
    Flags.option[OutputFormat]("output", "Output format: table (for people) or json (JSON lines). Default: table on a terminal, json otherwise.", "o")
      .orNone

  def resolve(chosen: Option[OutputFormat], shell: Shell): OutputFormat =
    chosen.getOrElse(if (shell.stdoutIsTerminal) Table else Json)

  /** Output that has both forms: one compact JSON object per line, or text for people (a table, usually). */
  def emit(format: OutputFormat, shell: Shell)(json: => List[io.circe.Json], table: => String): IO[Unit] = format match {
    case Json => json.traverse_(j => shell.println(j.noSpaces))
    case Table => shell.println(table)
  }
}

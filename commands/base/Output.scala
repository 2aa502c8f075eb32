package bankops.base

import cats.syntax.all._
import com.monovore.decline.Opts

/** How results are printed: tables for people, JSON lines for machines. */
sealed trait OutputFormat
object OutputFormat {
  case object Table extends OutputFormat
  case object Json extends OutputFormat

  /** `--output table|json`; without it, a table on a terminal and JSON lines elsewhere. */
  val opts: Opts[Option[OutputFormat]] =
    Opts
      .option[String]("output", "Output format: table (for people) or json (JSON lines). Default: table on a terminal, json otherwise.", "o", "FORMAT")
      .mapValidated {
        case "table" => Table.validNel
        case "json"  => Json.validNel
        case other   => s"--output must be table or json, not '$other'".invalidNel
      }
      .orNone

  def resolve(chosen: Option[OutputFormat], shell: Shell): OutputFormat =
    chosen.getOrElse(if (shell.stdoutIsTerminal) Table else Json)
}

/** Plain aligned text tables. */
object Table {
  def render(header: List[String], rows: List[List[String]]): String = {
    val all = header :: rows
    val widths = all.foldLeft(List.fill(header.size)(0)) { (w, row) =>
      w.zipAll(row.map(_.length), 0, 0).map { case (a, b) => a max b }
    }
    def line(cells: List[String]): String =
      cells.zip(widths).map { case (c, w) => c.padTo(w, ' ') }.mkString("  ").replaceAll("\\s+$", "")
    (line(header) :: line(widths.map("-" * _)) :: rows.map(line)).mkString("\n")
  }
}

/** `--timeout SECONDS`: how long a job waits for a service before exit 3. */
object TimeoutOpt {
  import scala.concurrent.duration._

  def opts(default: Int): Opts[FiniteDuration] =
    Opts.option[Int]("timeout", s"Seconds to wait for a service before giving up with exit 3 (default $default).", metavar = "SECONDS")
      .mapValidated(s => if (s > 0) s.validNel else s"--timeout must be positive, not $s".invalidNel)
      .withDefault(default).map(_.seconds)
}

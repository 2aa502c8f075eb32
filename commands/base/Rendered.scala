package bankops.base

import cats.Eval
import cats.effect.IO
import cats.syntax.all._
import io.circe.Json

/** What a step has to show, as data, in the order it is shown: results (JSON values for `-o json`, the same as text
  * for people) on stdout, notes and warnings on stderr. Services build it and print nothing; a job shows it with
  * [[Rendered.show]] and chooses its exit code.
  */
final case class Rendered(parts: List[Rendered.Part]) {
  def ++(other: Rendered): Rendered = Rendered(parts ++ other.parts)
  def when(cond: Boolean): Rendered = if (cond) this else Rendered.empty
}

object Rendered {
  sealed trait Part
  /** Both forms of a result, made only when shown, and only the one the format asks for (a findings table is not built
    * for JSON lines).
    */
  final case class Result(json: Eval[List[Json]], text: Eval[String]) extends Part
  final case class Note(line: String) extends Part
  /** Text for stdout byte for byte, whatever the format (a script, a log's end, `export` lines). */
  final case class Text(text: String) extends Part
  final case class Warning(line: String) extends Part
  /** A line for people on stderr when the results go out as JSON lines (a table already says it). */
  final case class JsonNote(line: String) extends Part
  /** Markdown for the GitHub Actions job summary (a job's [[StepSummary]], a chart), appended when `GITHUB_STEP_SUMMARY` is set. */
  final case class Summary(markdown: String) extends Part

  val empty: Rendered = Rendered(Nil)
  def result(json: => List[Json], text: => String): Rendered = Rendered(List(Result(Eval.later(json), Eval.later(text))))
  def note(line: String): Rendered = Rendered(List(Note(line)))
  def text(text: String): Rendered = Rendered(List(Text(text)))
  /** Lines for stdout as they are, each ended with a line break. */
  def lines(lines: List[String]): Rendered = text(lines.map(_ + "\n").mkString)
  def warning(line: String): Rendered = Rendered(List(Warning(line)))
  def jsonNote(line: String): Rendered = Rendered(List(JsonNote(line)))
  def summary(s: StepSummary): Rendered = Rendered(List(Summary(s.markdown)))
  def summaryMarkdown(markdown: String): Rendered = Rendered(List(Summary(markdown)))
  def all(rs: List[Rendered]): Rendered = Rendered(rs.flatMap(_.parts))

  def show(r: Rendered, format: OutputFormat, shell: Shell): IO[Unit] = r.parts.traverse_ {
    case Result(json, text) => OutputFormat.emit(format, shell)(json.value, text.value)
    case Note(line) => shell.info(line)
    case Text(text) => shell.print(text)
    case Warning(line) => shell.warn(line)
    case JsonNote(line) => shell.info(line).whenA(format == OutputFormat.Json)
    case Summary(markdown) => StepSummary.append(shell, markdown)
  }
}

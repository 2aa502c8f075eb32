package bankops.base

import cats.effect.IO
import cats.syntax.all._

/** One job's section of a GitHub Actions job summary: a heading with the outcome, key/value facts, tables, notes.
  * Every job renders through here, so every summary looks alike:
  *
  * {{{
  * ### bankops plan: 3 changes pending, none incompatible :warning:
  *
  * - **topics**: 1 change
  * - **subjects**: 2 to register
  *
  * **topics**
  *
  * | topic | action | detail |
  * | --- | --- | --- |
  * | heartbeat | create | 1 partitions, replication 1 |
  * }}}
  *
  * [[markdown]] is pure; [[StepSummary.write]] appends it to the file `GITHUB_STEP_SUMMARY` names, when set.
  */
final case class StepSummary(job: String, headline: String, outcome: StepSummary.Outcome,
                             facts: List[(String, String)] = Nil, tables: List[StepSummary.Table] = Nil, notes: List[String] = Nil) {
  def markdown: String = {
    val head = StepSummary.heading(s"bankops $job: ${StepSummary.inline(headline)}${outcome.mark.fold("")(" " + _)}")
    val blocks = List(head) ++
      Option.when(facts.nonEmpty)(StepSummary.facts(facts)) ++
      tables.map(StepSummary.table) ++
      notes.map(StepSummary.inline)
    blocks.mkString("", "\n\n", "\n")
  }
}

object StepSummary {

  /** The environment variable GitHub Actions sets to the step's summary file. */
  val Variable = "GITHUB_STEP_SUMMARY"

  /** How the step went, shown after the heading as GitHub's emoji. */
  sealed abstract class Outcome(val mark: Option[String])
  object Outcome {
    case object Ok extends Outcome(Some(":white_check_mark:"))
    /** Something to look at that is not a failure (pending changes, records that did not decode). */
    case object Attention extends Outcome(Some(":warning:"))
    case object Failed extends Outcome(Some(":x:"))
    case object Info extends Outcome(None)
  }

  /** A Markdown table; `numeric` columns (0-based) are right-aligned; rows past `limit` are counted in a note. */
  final case class Table(headers: List[String], rows: List[List[String]], title: Option[String] = None,
                         numeric: Set[Int] = Set.empty, limit: Int = 100)

  /** `### text`, on one line. */
  def heading(text: String, level: Int = 3): String = "#" * (level max 1 min 6) + " " + inline(text)

  /** `- **key**: value` lines. */
  def facts(pairs: List[(String, String)]): String =
    pairs.map { case (k, v) => s"- **${inline(k)}**: ${inline(v)}" }.mkString("\n")

  /** The table, with its title in bold above it and a line saying how many rows were left out. */
  def table(t: Table): String = {
    val width = t.headers.size max 1
    def row(cells: List[String]): String = cells.padTo(width, "").take(width).map(cell).mkString("| ", " | ", " |")
    val align = (0 until width).map(i => if (t.numeric(i)) "---:" else "---").mkString("| ", " | ", " |")
    val shown = t.rows.take(t.limit)
    val body = if (t.rows.isEmpty) List(row(List("(none)"))) else shown.map(row)
    val more = Option.when(t.rows.size > t.limit)(s"… and ${t.rows.size - t.limit} more rows (`--output json` lists them all)")
    (t.title.map(s => s"**${inline(s)}**") ++ List((row(t.headers) :: align :: body).mkString("\n")) ++ more).mkString("\n\n")
  }

  /** A table cell: pipes escaped (with any backslashes before them, which would otherwise escape the escape),
    * line breaks as `<br>` (a raw newline would end the row).
    */
  def cell(text: String): String =
    "(\\\\*)\\|".r.replaceAllIn(text, m => java.util.regex.Matcher.quoteReplacement(m.group(1) * 2 + "\\|"))
      .replace("\r\n", "\n").replace("\r", "\n").replace("\n", "<br>")

  /** A code span that survives any backticks inside it. */
  def code(text: String): String = {
    val ticks = "`" * ("`+".r.findAllIn(text).map(_.length).maxOption.getOrElse(0) + 1)
    val pad = if (text.startsWith("`") || text.endsWith("`")) " " else ""
    s"$ticks$pad$text$pad$ticks"
  }

  /** Text on one line (headings, facts and notes are single lines). */
  def inline(text: String): String = text.replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ')

  /** Appends the section to `$GITHUB_STEP_SUMMARY` when it is set (read from the shell's environment); otherwise nothing. */
  def write(shell: Shell, summary: StepSummary): IO[Unit] = append(shell, summary.markdown)

  /** Appends Markdown to `$GITHUB_STEP_SUMMARY` when it is set, a blank line after it. */
  def append(shell: Shell, markdown: String): IO[Unit] =
    shell.env.get(Variable).filter(_.trim.nonEmpty).traverse_ { f =>
      IO.blocking(os.write.append(os.Path(f, os.pwd), markdown.stripSuffix("\n") + "\n\n"))
        .adaptError { case e: java.io.IOException => Failure.BadInput(s"$Variable $f: cannot append the job summary: ${e.getMessage}") }
    }
}

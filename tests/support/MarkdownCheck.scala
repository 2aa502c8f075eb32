package bankops.support

/** What GitHub needs to render a job summary as meant (GitHub-flavoured Markdown), checked line by line:
  * code fences closed, headings with text, and every table whole — a blank line before it, a delimiter row
  * right after its header, and as many cells in every row as in the header (pipes inside cells escaped).
  * Returns the problems, each naming its line; none means the summary is valid.
  */
object MarkdownCheck {

  /** The cells of a table row, split on unescaped pipes as GitHub's table extension does (`\x` is one unit). */
  def cells(line: String): List[String] = {
    val t = line.trim.stripPrefix("|")
    val body = if (t.endsWith("|") && !t.endsWith("\\|") || t.endsWith("\\\\|")) t.dropRight(1) else t
    val out = List.newBuilder[String]
    val cur = new StringBuilder
    var i = 0
    while (i < body.length) {
      val c = body(i)
      if (c == '\\' && i + 1 < body.length) { cur.append(c).append(body(i + 1)); i += 2 }
      else if (c == '|') { out += cur.toString.trim; cur.clear(); i += 1 }
      else { cur.append(c); i += 1 }
    }
    (out += cur.toString.trim).result()
  }

  private val Delimiter = """:?-{3,}:?""".r

  def problems(markdown: String): List[String] = {
    val lines = markdown.linesIterator.toVector
    val found = List.newBuilder[String]
    if (markdown.trim.isEmpty) found += "the summary is empty"
    var fence: Option[Int] = None
    var table: Option[Int] = None // the header's cell count while inside a table
    lines.zipWithIndex.foreach { case (line, i) =>
      val n = i + 1
      val trimmed = line.trim
      if (trimmed.startsWith("```")) { fence = if (fence.isDefined) None else Some(n); table = None }
      else if (fence.isEmpty) {
        if (trimmed.startsWith("#")) {
          if (!trimmed.matches("#{1,6} +\\S.*")) found += s"line $n: a heading needs 1-6 '#', a space and text: $line"
          table = None
        } else if (trimmed.startsWith("|")) table match {
          case Some(width) =>
            if (cells(trimmed).size != width) found += s"line $n: ${cells(trimmed).size} cells where the header has $width: $line"
          case None =>
            val width = cells(trimmed).size
            if (i > 0 && lines(i - 1).trim.nonEmpty) found += s"line $n: a table needs a blank line before it"
            val delimiter = lines.lift(i + 1).map(_.trim).getOrElse("")
            if (!delimiter.startsWith("|") || !cells(delimiter).forall(c => Delimiter.matches(c)))
              found += s"line $n: a table header must be followed by a delimiter row (| --- |): ${lines.lift(i + 1).getOrElse("(end)")}"
            else if (cells(delimiter).size != width) found +=
              s"line ${n + 1}: the delimiter row has ${cells(delimiter).size} cells, the header $width"
            table = Some(width)
        }
        else table = None
      }
    }
    fence.foreach(f => found += s"line $f: a code fence that is never closed")
    found.result()
  }

  /** The data rows of every table, as cells (header and delimiter rows left out). */
  def tableRows(markdown: String): List[List[String]] = {
    val rows = List.newBuilder[List[String]]
    var state = 0 // 0 outside a table, 1 after its header, 2 in its body
    markdown.linesIterator.map(_.trim).foreach { line =>
      if (!line.startsWith("|")) state = 0
      else if (state == 0) state = 1
      else if (state == 1) state = 2
      else rows += cells(line)
    }
    rows.result()
  }
}

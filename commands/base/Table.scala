package bankops.base

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

package bankops.jobs.inspect

import java.nio.charset.StandardCharsets.UTF_8

/** The lines a chunk shows, each as its UTF-8 bytes: line `j` renders record `rows(j)` of the chunk; `tally` counts
  * the whole chunk. Made where the chunk is rendered, in parallel, so the one thread that writes in order only writes.
  * (Each line is encoded by `String.getBytes`, whose intrinsics beat copying a builder's chars into one array.)
  */
private[inspect] final class ChunkLines private (val lines: Array[Array[Byte]], val rows: Array[Int], val count: Int,
                                                 val tally: InspectStats)

private[inspect] object ChunkLines {
  final class Builder(records: Int) {
    private val lines = new Array[Array[Byte]](records)
    private val rows = new Array[Int](records)
    private var added = 0
    def count: Int = added

    /** Appends record `row`'s text. */
    def add(row: Int, text: CharSequence): Unit = {
      lines(added) = text.toString.getBytes(UTF_8); rows(added) = row; added += 1
    }

    def result(tally: InspectStats): ChunkLines = new ChunkLines(lines, rows, added, tally)
  }

  /** A chunk's lines from already rendered texts (`null`: a record the filters hide), for tests and small reads. */
  def of(texts: Seq[CharSequence], tally: InspectStats): ChunkLines = {
    val b = new Builder(texts.size)
    texts.zipWithIndex.foreach { case (t, i) => if (t != null) b.add(i, t) }
    b.result(tally)
  }
}

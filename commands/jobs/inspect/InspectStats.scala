package bankops.jobs.inspect

import fs2.Chunk
import org.apache.avro.Schema

import scala.jdk.CollectionConverters._

import bankops.base.StepSummary
import bankops.services.records.{Decoded, RecordFilter}

/** Counts for the closing summary, and the top-level fields of each record type read (to say when a filter names
  * a field or type that none of them has).
  */
final case class InspectStats(read: Long, shown: Long, undecodable: Long, byRecord: Map[String, Long],
                              fields: Map[String, Set[String]] = Map.empty) {
  /** Filters that can match none of the decoded records read: a record type not among them, a field none of them has. */
  def filterWarnings(filter: RecordFilter, selected: Option[FieldSelection] = None): List[String] =
    if (byRecord.isEmpty) Nil
    else {
      val seen = byRecord.keys.toList.sorted
      val records = filter.records.filterNot(n => seen.exists(r => r == n || r.endsWith("." + n))).map { n =>
        s"--record $n: no record of that type among the $read read (types read: ${seen.map(_.split('.').last).mkString(", ")})"
      }
      val allFields = fields.values.flatten.toSet
      val wheres = filter.where.map(_.path).distinct.filterNot(f => allFields.contains(f.head)).map { f =>
        s"--where: no record read has a field '${f.mkString(".")}' (fields: ${allFields.toList.sorted.mkString(", ")})"
      }
      val kept = selected.toList.flatMap(_.heads.toList.sorted).filterNot(allFields.contains).map { f =>
        s"--fields: no record read has a field '$f' (fields: ${allFields.toList.sorted.mkString(", ")})"
      }
      records ++ wheres ++ kept
    }

  def summary: String = {
    val types = byRecord.toList.sortBy { case (r, n) => (-n, r) }.map { case (r, n) => s"$r $n" }
    s"$read read, $shown shown, $undecodable undecodable" + (if (types.isEmpty) "" else types.mkString(" (", ", ", ")"))
  }

  /** For `$GITHUB_STEP_SUMMARY`: the counts and the records per type; undecodable records need a look (fail with --strict). */
  def stepSummary(topics: List[String], strict: Boolean, partitions: Int): StepSummary =
    StepSummary("inspect", s"$read records read from ${topics.mkString(", ")}, $shown shown",
      if (undecodable == 0) StepSummary.Outcome.Ok else if (strict) StepSummary.Outcome.Failed else StepSummary.Outcome.Attention,
      facts = List("topics" -> topics.mkString(", "), "read" -> read.toString, "shown" -> shown.toString, "partitions read" -> partitions.toString,
        "undecodable" -> undecodable.toString),
      tables = List(StepSummary.Table(List("record", "count"),
          byRecord.toList.sortBy { case (r, n) => (-n, r) }.map { case (r, n) => List(r, n.toString) },
          numeric = Set(1))))
}

private[inspect] object InspectStats {
  val empty: InspectStats = InspectStats(0, 0, 0, Map.empty)

  /** The counts of a chunk's records for which `counted(i)` holds (all of them where it is rendered, in parallel). */
  def tally(decoded: Chunk[Decoded], shown: Int, counted: Int => Boolean = _ => true): InspectStats = {
    var (read, undecodable) = (0L, 0L)
    val byRecord = scala.collection.mutable.HashMap.empty[String, Long]
    var fields = Map.empty[String, Set[String]]
    var i = 0
    while (i < decoded.size) {
      if (counted(i)) {
        val d = decoded(i)
        read += 1
        if (!d.ok) undecodable += 1
        d.envelope.record.foreach { r =>
          byRecord.update(r, byRecord.getOrElse(r, 0L) + 1)
          d.schema.filter(schema => !fields.contains(r) && schema.getType == Schema.Type.RECORD).foreach(schema =>
            fields = fields.updated(r, schema.getFields.asScala.map(_.name).toSet))
        }
      }
      i += 1
    }
    InspectStats(read, shown, undecodable, byRecord.toMap, fields)
  }

  /** Counts of two stretches of records, one after the other. */
  def add(a: InspectStats, b: InspectStats): InspectStats =
    InspectStats(a.read + b.read, a.shown + b.shown, a.undecodable + b.undecodable,
      b.byRecord.foldLeft(a.byRecord) { case (m, (r, n)) => m.updated(r, m.getOrElse(r, 0L) + n) }, b.fields ++ a.fields)

  /** One chunk, in order, after `s0`. Hidden records are always counted; shown ones until `limit` lines are shown,
    * after which they are neither counted nor shown. Returns the new counts, how many of the chunk's lines to write
    * and whether the limit is reached.
    */
  def step(s0: InspectStats, decoded: Chunk[Decoded], lines: ChunkLines, limit: Option[Long]): (InspectStats, Int, Boolean) = {
    val room = limit.fold(lines.count.toLong)(l => (l - s0.shown) max 0L)
    val s =
      if (room >= lines.count) add(s0, lines.tally)
      else {
        // The limit falls inside this chunk (once per read): count again, up to the last line that fits.
        val take = room.toInt
        val lastRow = if (take == 0) -1 else lines.rows(take - 1)
        val shownRows = lines.rows.iterator.take(lines.count).toSet
        add(s0, tally(decoded, take, i => i <= lastRow || !shownRows.contains(i)))
      }
    val written = (s.shown - s0.shown).toInt
    (s, written, limit.exists(s.shown >= _))
  }
}

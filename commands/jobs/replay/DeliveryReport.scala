package bankops.jobs.replay

import scala.concurrent.duration.FiniteDuration

import bankops.base.StepSummary

/** What a send to a topic came to: records read, acknowledgements per target partition, records in batches whose
  * delivery failed and, per source partition, the first source offset not delivered (where to resume).
  */
private[replay] final case class DeliveryReport(read: Long, acked: List[Long], failed: Long, resumeAt: Map[Int, Long], took: FiniteDuration,
                                                interrupted: Boolean = false) {
  def acknowledged: Long = acked.sum

  /** "replay: 30 read, 30 acknowledged on t in 1.20 s, 25 records/s (per partition: 0=10 1=20), 0 failed" */
  def summary(topic: String): String = {
    val perPartition = acked.zipWithIndex.filter(_._1 > 0).map { case (c, p) => s"$p=$c" }.mkString(" ")
    s"replay: ${if (interrupted) "interrupted (Ctrl-C): " else ""}$read read, $acknowledged acknowledged on $topic in " +
      s"${DeliveryReport.rate(acknowledged, took)} " +
      s"(per partition: ${if (perPartition.isEmpty) "none" else perPartition})" +
      (if (failed > 0) s", $failed in batches with failed deliveries" else ", 0 failed")
  }

  /** For `$GITHUB_STEP_SUMMARY`: the counts, acknowledgements per partition, where to resume; `verified` when --verify ran. */
  def stepSummary(topic: String, verified: Option[Boolean], file: Option[os.Path] = None): StepSummary =
    StepSummary("replay", s"$read read, $acknowledged acknowledged on $topic",
      if (failed == 0 && !interrupted && !verified.contains(false)) StepSummary.Outcome.Ok else StepSummary.Outcome.Failed,
      facts = List("target topic" -> topic, "read" -> read.toString, "acknowledged" -> acknowledged.toString, "failed" -> failed.toString,
        "took" -> DeliveryReport.rate(acknowledged, took)) ++ verified.map(v => "verified" -> (if (v) "identical" else "differences found")),
      tables = List(StepSummary.Table(List("partition", "acknowledged"),
          acked.zipWithIndex.filter(_._1 > 0).map { case (c, p) => List(p.toString, c.toString) },
          numeric = Set(0, 1))),
      notes = (if (interrupted) List("interrupted (Ctrl-C) before everything due was read") else Nil) ++
        resume(file).map(r => s"not delivered: $r").toList)

  /** Where to resume when something was not delivered: "resume with --from offset per source partition: partition 0
    * from offset 12, partition 3 from offset 40", or for the lines of `file` "resume from line 41 of FILE (...)".
    */
  def resume(file: Option[os.Path] = None): Option[String] =
    if (failed == 0 && !interrupted) None
    else resumeAt.get(Outgoing.FileLines) match {
      case Some(line) =>
        val name = file.fold("FILE")(_.toString)
        Some(s"resume from line $line of ${file.fold("the file")(_.toString)} (the lines before it were delivered): " +
          s"tail -n +$line $name > REST, then replay --from-file REST")
      case None =>
        Some("resume with --from offset per source partition: " +
          resumeAt.toList.sortBy(_._1).map { case (p, off) => s"partition $p from offset $off" }.mkString(", "))
    }
}

private[replay] object DeliveryReport {
  /** "3.21 s, 155763 records/s": from opening the source to the last acknowledgement. */
  def rate(records: Long, took: FiniteDuration): String = {
    val seconds = took.toMillis / 1000.0
    f"$seconds%.2f s, ${if (seconds > 0) records / seconds else 0.0}%.0f records/s"
  }
}

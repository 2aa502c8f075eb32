package bankops.jobs.balances

import io.circe.Json
import io.circe.syntax._

import bankops.base.{StepSummary, Table}

/** The outcome of a validation: findings plus the counts and timings of the run. */
final case class ValidationReport(findings: List[Finding], accountsKafka: Int, accountsDb: Int, accountsChecked: Int, events: Long,
                                  partitions: List[Int], kafkaSeconds: Double, dbSeconds: Double, compareSeconds: Double,
                                  settled: Int) {
  def byKind: List[(String, Int)] = Finding.kinds.map(k => k -> findings.count(_.kind == k))

  def summaryJson: Json = Json.obj("summary" -> Json.obj(
    "accountsChecked" -> accountsChecked.asJson, "accountsOnKafka" -> accountsKafka.asJson, "accountsInDb" -> accountsDb.asJson,
    "events" -> events.asJson, "partitions" -> partitions.asJson, "findings" -> findings.size.asJson,
    "byKind" -> Json.fromFields(byKind.map { case (k, n) => k -> n.asJson }), "settledAccounts" -> settled.asJson,
    "seconds" -> Json.obj("kafka" -> kafkaSeconds.asJson, "postgres" -> dbSeconds.asJson, "compare" -> compareSeconds.asJson)))

  private def counts = byKind.filter(_._2 > 0).map { case (k, n) => s"$k $n" }

  def summaryLine: String =
    s"$accountsChecked accounts checked ($accountsKafka on Kafka, $accountsDb in the database), $events events read from " +
      s"${partitions.size} partitions; " + (if (findings.isEmpty) "everything agrees" else s"${findings.size} findings: ${counts.mkString(", ")}") +
      f"; Kafka $kafkaSeconds%.1f s, PostgreSQL $dbSeconds%.1f s, comparison $compareSeconds%.2f s"

  def table(show: Int): String = {
    val head = summaryLine
    if (findings.isEmpty) head
    else head + "\n\n" + Table.render(List("FINDING", "IBAN", "DETAIL"), findings.take(show).map(f => List(f.kind, f.iban, f.detail))) +
      (if (findings.size > show) s"\n... and ${findings.size - show} more (--show N, or --output json for all)" else "")
  }

  /** For `$GITHUB_STEP_SUMMARY`: the counts, findings per kind and the first `show` findings. */
  def stepSummary(show: Int): StepSummary = {
    val headline =
      if (findings.isEmpty) s"balances agree, $accountsChecked accounts checked" else s"${findings.size} findings in $accountsChecked accounts"
    StepSummary("balances validate", headline, if (findings.isEmpty) StepSummary.Outcome.Ok else StepSummary.Outcome.Failed,
      facts = List("accounts checked" -> s"$accountsChecked ($accountsKafka on Kafka, $accountsDb in the database)", "events" -> events.toString,
        "partitions" -> partitions.mkString(","), "findings" -> findings.size.toString) ++
        Option.when(settled > 0)("re-checked after --settle" -> settled.toString),
      tables = List(StepSummary.Table(List("finding", "count"), byKind.map { case (k, n) => List(k, n.toString) }, numeric = Set(1))) ++
        Option.when(findings.nonEmpty)(StepSummary.Table(List("finding", "iban", "detail"),
            findings.map(f => List(f.kind, StepSummary.code(f.iban), f.detail)), limit = show)))
  }
}

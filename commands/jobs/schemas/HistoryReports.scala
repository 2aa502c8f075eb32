package bankops.jobs.schemas

import io.circe.{Encoder, Json}
import io.circe.syntax._

import bankops.services.registry.SchemaReference

/** One version of a subject; `created` only where the registry says when. */
private[schemas] final case class VersionInfo(subject: String, version: Int, id: Int, created: Option[String], references: List[SchemaReference])

/** A subject's versions, oldest first, and where their dates came from (None: the registry gives none). */
private[schemas] final case class VersionsReport(subject: String, versions: List[VersionInfo], datesFrom: Option[String])

/** The registry's verdict on a diff's new side against its old one, under the subject's level, with the reasons. */
private[schemas] final case class Verdict(level: String, compatible: Boolean, reasons: List[String], reasonsFrom: Option[String])

private[schemas] final case class DiffReport(subject: String, from: String, to: String, changes: List[SchemaChange], verdict: Verdict)

private[schemas] object HistoryReports {
  def referencesText(refs: List[SchemaReference]): String =
    if (refs.isEmpty) "none" else refs.map(r => s"${r.name} -> ${r.subject} v${r.version}").mkString(", ")

  implicit val versionEncoder: Encoder[VersionInfo] = Encoder.instance(v =>
    Json.obj("subject" -> v.subject.asJson, "version" -> v.version.asJson, "id" -> v.id.asJson, "created" -> v.created.asJson,
      "references" -> v.references.asJson))

  implicit val verdictEncoder: Encoder[Verdict] = Encoder.instance(v =>
    Json.obj("level" -> v.level.asJson, "compatible" -> v.compatible.asJson, "reasons" -> v.reasons.asJson, "reasonsFrom" -> v.reasonsFrom.asJson))

  implicit val diffEncoder: Encoder[DiffReport] = Encoder.instance(d =>
    Json.obj("subject" -> d.subject.asJson, "from" -> d.from.asJson, "to" -> d.to.asJson, "changes" -> d.changes.asJson,
      "compatibility" -> d.verdict.asJson))
}

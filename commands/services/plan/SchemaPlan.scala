package bankops.services.plan

import io.circe.{Encoder, Json}
import io.circe.syntax._

import bankops.services.contracts.DesiredSubject

/** What the registry holds for a subject, compared with the contract. */
sealed abstract class SubjectStatus(val name: String)
object SubjectStatus {
  case object New extends SubjectStatus("new")
  final case class Unchanged(id: Int, version: Int) extends SubjectStatus("unchanged")
  final case class NewVersion(after: Int) extends SubjectStatus("new-version")
  final case class Incompatible(level: String, reasons: List[String]) extends SubjectStatus("incompatible")
}

final case class SubjectPlan(desired: DesiredSubject, status: SubjectStatus, level: String, newLevel: Option[String]) {
  def pending: Boolean = status match {
    case SubjectStatus.Unchanged(_, _) => newLevel.isDefined
    case _ => true
  }
  def incompatible: Boolean = status.isInstanceOf[SubjectStatus.Incompatible]

  def detail: String = {
    val s = status match {
      case SubjectStatus.New => "register version 1"
      case SubjectStatus.Unchanged(id, v) => s"id $id, version $v"
      case SubjectStatus.NewVersion(after) => s"register version ${after + 1} (compatible under $level)"
      case SubjectStatus.Incompatible(l, reasons) =>
        s"refused under $l: ${if (reasons.isEmpty) "the registry gave no reason" else reasons.mkString("; ")}"
    }
    newLevel.fold(s)(l => s"$s; compatibility $level -> $l")
  }
}

object SubjectPlan {
  implicit val encoder: Encoder[SubjectPlan] = Encoder.instance { p =>
    val extra = p.status match {
      case SubjectStatus.Unchanged(id, v) => List("id" -> id.asJson, "version" -> v.asJson)
      case SubjectStatus.NewVersion(after) => List("version" -> (after + 1).asJson)
      case SubjectStatus.New => List("version" -> 1.asJson)
      case SubjectStatus.Incompatible(_, reasons) => List("reasons" -> reasons.asJson)
    }
    Json.fromFields(List("subject" -> p.desired.subject.asJson, "record" -> p.desired.record.asJson, "topics" -> p.desired.topics.asJson,
      "status" -> p.status.name.asJson, "compatibility" -> p.level.asJson, "newCompatibility" -> p.newLevel.asJson) ++ extra)
  }
}

final case class SchemaPlan(subjects: List[SubjectPlan]) {
  def pending: List[SubjectPlan] = subjects.filter(_.pending)
  def incompatible: List[SubjectPlan] = subjects.filter(_.incompatible)
  def isEmpty: Boolean = pending.isEmpty
}

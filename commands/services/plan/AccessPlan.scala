package bankops.services.plan

import io.circe.{Encoder, Json}
import io.circe.syntax._

/** An ACL to `add`, to `delete` (only with --delete-unlisted), or `unlisted`: on the cluster, not in the topology, left alone. */
final case class AclChange(action: String, acl: AclEntry)
object AclChange {
  implicit val encoder: Encoder[AclChange] = Encoder.instance(c => Json.obj("action" -> c.action.asJson).deepMerge(c.acl.asJson))
}

/** A SCRAM credential to `create`, to `delete` (only with --delete-unlisted), `unlisted` (left alone), or `present`:
  * declared and on the cluster with its mechanism; passwords cannot be read back, so a present one is never compared.
  */
final case class UserChange(action: String, user: String, mechanism: String) {
  def detail: String = action match {
    case AccessPlan.Create => "create with the declared password"
    case AccessPlan.Present => "in place (Kafka cannot show a password, so it is not compared)"
    case AccessPlan.Delete => "not in the topology (--delete-unlisted)"
    case _ => "not in the topology: drift, left alone (--delete-unlisted --yes deletes it)"
  }
}
object UserChange {
  implicit val encoder: Encoder[UserChange] = Encoder.instance(c =>
    Json.obj("action" -> c.action.asJson, "user" -> c.user.asJson, "mechanism" -> c.mechanism.asJson, "detail" -> c.detail.asJson))
}

/** ACLs and SCRAM users: what apply would change, the drift it leaves, and what refuses the whole apply
  * (`notAuthorized`: the authorizer would refuse the changes, exit 4). `managesAcls`/`managesUsers` are false when the
  * topology has no `access`/`users`: then nothing was even read.
  */
final case class AccessPlan(managesAcls: Boolean, managesUsers: Boolean, acls: List[AclChange], users: List[UserChange], refusals: List[String],
                            notAuthorized: Boolean = false) {
  def manages: Boolean = managesAcls || managesUsers
  def aclChanges: List[AclChange] = acls.filter(c => c.action == AccessPlan.Add || c.action == AccessPlan.Delete)
  def userChanges: List[UserChange] = users.filter(c => c.action == AccessPlan.Create || c.action == AccessPlan.Delete)
  def changes: Int = aclChanges.size + userChanges.size
  def isEmpty: Boolean = changes == 0
  def drift: Int = acls.count(_.action == AccessPlan.Unlisted) + users.count(_.action == AccessPlan.Unlisted)
  def refused: Boolean = refusals.nonEmpty
}

object AccessPlan {
  val Add = "add"
  val Create = "create"
  val Delete = "delete"
  val Unlisted = "unlisted"
  val Present = "present"

  /** The topology declares neither `access` nor `users`. */
  val unmanaged: AccessPlan = AccessPlan(managesAcls = false, managesUsers = false, Nil, Nil, Nil)
}

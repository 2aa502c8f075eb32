package bankops.jobs.doctor

import org.apache.kafka.common.acl.{AclBinding, AclOperation, AclPermissionType}
import org.apache.kafka.common.acl.AclOperation._
import org.apache.kafka.common.resource.PatternType

/** Kafka's authorizer's rule over ACLs read back from the cluster, for a set of principals (the identity's candidates
  * and `User:*`): a DENY that matches wins; else an ALLOW that matches the operation, or ALL, or one that implies it
  * (READ, WRITE, DELETE, ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS). Hosts are not compared: doctor
  * cannot know from where the job will connect, so an ACL for another host counts as held.
  */
private[doctor] object AclView {

  private def implied(op: AclOperation): Set[AclOperation] = op match {
    case DESCRIBE => Set(DESCRIBE, READ, WRITE, DELETE, ALTER, ALL)
    case DESCRIBE_CONFIGS => Set(DESCRIBE_CONFIGS, ALTER_CONFIGS, ALL)
    case other => Set(other, ALL)
  }

  /** Does the binding's pattern cover the need's resource? A prefixed need (a transactional-id prefix) is covered by
    * the wildcard or by a PREFIXED pattern that its prefix starts with.
    */
  private def covers(binding: AclBinding, need: Need): Boolean = {
    val p = binding.pattern
    p.resourceType == need.resource &&
    (p.patternType match {
      case PatternType.LITERAL => p.name == "*" || (!need.prefixed && p.name == need.name)
      case PatternType.PREFIXED => need.name.startsWith(p.name)
      case _ => false
    })
  }

  def holds(acls: List[AclBinding], principals: Set[String], need: Need): Boolean = {
    val mine = acls.filter(b => (principals + "User:*").contains(b.entry.principal) && covers(b, need))
    def matching(permission: AclPermissionType, ops: Set[AclOperation]) =
      mine.exists(b => b.entry.permissionType == permission && ops(b.entry.operation))
    // A DENY of the operation itself (or of ALL) refuses, whatever is allowed.
    val denied = matching(AclPermissionType.DENY, Set(need.operation, ALL))
    !denied && matching(AclPermissionType.ALLOW, implied(need.operation))
  }

  /** The needs not held. */
  def missing(acls: List[AclBinding], principals: Set[String], needs: List[Need]): List[Need] = needs.filterNot(holds(acls, principals, _))
}

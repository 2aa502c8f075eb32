package bankops.services.plan

import io.circe.{Encoder, Json}

/** One ACL as Kafka stores it, in Kafka's own enum names: `resourceType` TOPIC, GROUP, TRANSACTIONAL_ID or CLUSTER;
  * `patternType` LITERAL or PREFIXED; `operation` READ, WRITE, DESCRIBE, ...; `permission` ALLOW or DENY.
  * bankops only ever writes ALLOW on host `*`; what the cluster holds besides may be anything.
  */
final case class AclEntry(principal: String, resourceType: String, name: String, patternType: String, operation: String,
                          host: String = "*", permission: String = "ALLOW") {
  def resource: String = s"${resourceType.toLowerCase.replace('_', '-')}:$name${if (patternType == "PREFIXED") "*" else ""}"
  def show: String = s"$permission $principal $operation $resource" + (if (host == "*") "" else s" from $host")
}

object AclEntry {
  implicit val ordering: Ordering[AclEntry] =
    Ordering.by(a => (a.principal, a.resourceType, a.name, a.patternType, a.operation, a.host, a.permission))

  implicit val encoder: Encoder[AclEntry] = Encoder.instance(a =>
    Json.obj("principal" -> Json.fromString(a.principal), "resourceType" -> Json.fromString(a.resourceType),
      "name" -> Json.fromString(a.name), "patternType" -> Json.fromString(a.patternType), "operation" -> Json.fromString(a.operation),
      "host" -> Json.fromString(a.host), "permission" -> Json.fromString(a.permission)))
}

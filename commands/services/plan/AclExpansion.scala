package bankops.services.plan

import bankops.services.contracts.{Access, Grant, NamePattern, Role}

/** Pure: the exact ACLs Kafka's Java clients need for each role (host `*`, ALLOW).
  *
  *  - consumer: topic READ + DESCRIBE; group READ when a group or group prefix is given (a reader that assigns
  *    partitions itself joins no group and needs none).
  *  - producer: topic WRITE + DESCRIBE. Kafka 4.1 needs no cluster IDEMPOTENT_WRITE for idempotent producers (KIP-679).
  *  - transactional-producer: the producer's, and TRANSACTIONAL_ID WRITE + DESCRIBE on its id or id prefix.
  *  - admin: topic CREATE, DELETE, ALTER, ALTER_CONFIGS, DESCRIBE, DESCRIBE_CONFIGS.
  */
object AclExpansion {

  val AdminOperations: List[String] = List("CREATE", "DELETE", "ALTER", "ALTER_CONFIGS", "DESCRIBE", "DESCRIBE_CONFIGS")

  def expand(access: List[Access]): List[AclEntry] =
    access.flatMap(a => a.grants.flatMap(grant(a.principal, _))).distinct.sorted

  def grant(principal: String, g: Grant): List[AclEntry] = {
    def on(resourceType: String, p: NamePattern, operations: List[String]) =
      operations.map(AclEntry(principal, resourceType, p.name, if (p.prefixed) "PREFIXED" else "LITERAL", _))
    def topics(operations: String*) = g.topics.flatMap(on("TOPIC", _, operations.toList))
    g.role match {
      case Role.Consumer => topics("READ", "DESCRIBE") ++ g.group.toList.flatMap(on("GROUP", _, List("READ")))
      case Role.Producer => topics("WRITE", "DESCRIBE")
      case Role.TransactionalProducer => topics("WRITE", "DESCRIBE") ++
          g.transactionalId.toList.flatMap(on("TRANSACTIONAL_ID", _, List("WRITE", "DESCRIBE")))
      case Role.Admin => topics(AdminOperations: _*)
    }
  }
}

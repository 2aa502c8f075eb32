package bankops.services.contracts

/** One role of a principal: on which topics, and for consumers the group, for transactional producers the transactional id. */
final case class Grant(role: Role, topics: List[NamePattern], group: Option[NamePattern], transactionalId: Option[NamePattern])

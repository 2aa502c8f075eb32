package bankops.services.contracts

/** What one principal (`User:handler`) may do. */
final case class Access(principal: String, grants: List[Grant])

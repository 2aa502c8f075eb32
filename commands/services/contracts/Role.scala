package bankops.services.contracts

/** A role an operator thinks in; [[bankops.services.plan.AclExpansion]] turns it into the exact ACLs Kafka's Java clients need. */
sealed abstract class Role(val name: String)
object Role {
  case object Consumer extends Role("consumer")
  case object Producer extends Role("producer")
  case object TransactionalProducer extends Role("transactional-producer")
  case object Admin extends Role("admin")

  val all: List[Role] = List(Consumer, Producer, TransactionalProducer, Admin)
  def parse(s: String): Option[Role] = all.find(_.name == s)
}

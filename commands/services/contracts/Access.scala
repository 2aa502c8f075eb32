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

/** A resource name: exactly `name` (LITERAL), or every name starting with it (PREFIXED). */
final case class NamePattern(name: String, prefixed: Boolean) {
  // A '*' in a prefix is Kafka's literal character; quoted, so `topic:'*'*` is not read as a wildcard.
  def show: String = if (prefixed && name.contains('*')) s"'$name'*" else if (prefixed) s"$name*" else name
}

/** One role of a principal: on which topics, and for consumers the group, for transactional producers the transactional id. */
final case class Grant(role: Role, topics: List[NamePattern], group: Option[NamePattern], transactionalId: Option[NamePattern])

/** What one principal (`User:handler`) may do. */
final case class Access(principal: String, grants: List[Grant])

/** Where a SCRAM user's password comes from: never the topology itself. */
sealed trait PasswordSource { def describe: String }
object PasswordSource {
  final case class Env(variable: String) extends PasswordSource { def describe = s"environment variable $variable" }
  final case class File(path: os.Path) extends PasswordSource { def describe = s"password file $path" }
}

/** A declared SCRAM user; `mechanism` is Kafka's name (`SCRAM-SHA-512`, `SCRAM-SHA-256`). */
final case class ScramUser(name: String, mechanism: String, password: PasswordSource)

object ScramUser {
  val Mechanisms: List[String] = List("SCRAM-SHA-512", "SCRAM-SHA-256")
}

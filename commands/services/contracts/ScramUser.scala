package bankops.services.contracts

/** A declared SCRAM user; `mechanism` is Kafka's name (`SCRAM-SHA-512`, `SCRAM-SHA-256`). */
final case class ScramUser(name: String, mechanism: String, password: PasswordSource)

object ScramUser {
  val Mechanisms: List[String] = List("SCRAM-SHA-512", "SCRAM-SHA-256")
}

package bankops.jobs.sandbox

/** The sandbox's client identities, one per service: each has a certificate `CN=<name>` and a SCRAM user `<name>`,
  * both the principal `User:<name>` to the brokers. What each may do is declared in `schemas/topology.json`'s access.
  */
object Identities {
  /** The only super user besides the brokers: it sets the bank up. */
  val Operator = "operator"
  /** The command handler. */
  val Handler = "handler"
  /** Writers of load: heartbeat, replay's targets, latency's probes. */
  val Loader = "loader"
  /** Readers: inspect, balances, latency's readers. */
  val Reader = "reader"

  val all: List[String] = List(Operator, Handler, Loader, Reader)
}

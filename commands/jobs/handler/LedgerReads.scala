package bankops.jobs.handler

import java.util.UUID

import bankops.services.bank.BankRules

/** A batch's read step: reads what its commands need (earlier outcomes, the accounts locked, whether the numbers drawn
  * for new accounts are free) and applies the bank's rules in memory. The rows are written later, while the records go
  * out: the sends need the ledger's result, not its rows.
  */
private[handler] final class LedgerReads(queued: Iterator[Long] = Iterator.empty) {
  private val random = new java.security.SecureRandom()

  /** The batch's ledger, and how long its database reads took (ns). */
  def apply(d: LedgerDb, commands: Vector[Ledger.Command]): (Applied, Long) = {
    val ids = commands.map(_.fold(_.id, _.id)).toSet
    val a = System.nanoTime()
    // Numbers for the creations are drawn first, so the read that finds earlier outcomes also says which are taken.
    val drawn = commands.collect { case Left(c) => c.id -> draw() }
    val known0 = d.known(ids, Ledger.ibansOf(commands), drawn.map(_._2).toSet)
    val needed = drawn.filterNot { case (id, _) => known0.creations.contains(id) || known0.transfers.contains(id) }.distinctBy(_._1)
    val fresh = freshAccounts(d, needed, known0.taken, known0.accounts.keySet)
    val reads = System.nanoTime() - a
    (Ledger(commands, known0, fresh), reads)
  }

  // `queued`: numbers a test makes the handler draw first (a collision on purpose), then random ones.
  private def draw(): String = BankRules.iban(if (queued.hasNext) queued.next() else BankRules.accountNumber(random))

  /** An unused iban and a token per new account: the drawn numbers (`taken` those the table has), checked against
    * the accounts locked and one another, drawn again when taken (three rounds; then the original's failure reason).
    */
  private def freshAccounts(d: LedgerDb, first: Vector[(UUID, String)], taken0: Set[String], locked: Set[String])
      : Map[UUID, Option[(String, String)]] = {
    var result = Map.empty[UUID, Option[(String, String)]]
    var candidates = first
    var taken = taken0
    var used = locked
    var round = 0
    while (candidates.nonEmpty && round < 3) {
      if (round > 0) taken = d.taken(candidates.map(_._2).toSet)
      val dupes = candidates.groupBy(_._2).collect { case (iban, cs) if cs.size > 1 => iban }.toSet
      val (bad, good) = candidates.partition { case (_, iban) => taken(iban) || used(iban) || dupes(iban) }
      good.foreach { case (id, iban) => result += id -> Some((iban, BankRules.token(random))) }
      used ++= good.map(_._2)
      candidates = bad.map { case (id, _) => id -> draw() }
      round += 1
    }
    result ++ candidates.map(_._1 -> None)
  }
}

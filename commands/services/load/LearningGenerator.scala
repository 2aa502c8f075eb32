package bankops.services.load

import java.util.UUID
import scala.collection.mutable
import scala.util.Random

import bankops.services.bank.{Atype, BankRules, ConfirmAccountCreation, ConfirmMoneyTransfer}

/** Bank commands the bank can process, as the original command generator made them: accounts are opened first and
  * learned from the handler's feedback ([[AccountPool]]); then deposits from cash and transfers among the learned
  * accounts with their tokens, amounts kept within what each account holds by this load's own reckoning, so they
  * succeed; and exactly `failShare` of the transfers fail, in turn by each reason the handler gives (invalid token,
  * insufficient funds, both accounts unknown, from equals to). Until two accounts are known, creations (at most
  * 20 waiting) and deposits to the seeded account keep the load going. Deterministic for a seed and a pool.
  */
final class LearningGenerator(seed: Long, failShare: Double, pool: AccountPool) {
  private val random = new Random(seed)
  private val balances = mutable.Map.empty[String, Long]
  private var transfers = 0L
  private var failing = 0L

  private def uuid(): UUID = new UUID(random.nextLong(), random.nextLong())

  private def creation(): Left[ConfirmAccountCreation, Nothing] = {
    val c = ConfirmAccountCreation(uuid(), if (random.nextBoolean()) Atype.Auto else Atype.Manual)
    pool.ask(c.id)
    Left(c)
  }

  private def mustFail(): Boolean = {
    transfers += 1
    val due = math.floor(transfers * failShare).toLong
    if (due > failing) { failing += 1; true }
    else false
  }

  /** Two different valid account numbers no account of the bank has, from the range the handler never draws. Drawn
    * alike, they met once in a million draws, and the bank then answered "from and to can't be same" instead.
    */
  private def strangers(): (String, String) = {
    val from = random.nextInt(1000000)
    val to = (from + 1 + random.nextInt(999999)) % 1000000
    (BankRules.outsideIban(9000000L + from), BankRules.outsideIban(9000000L + to))
  }

  def next(): Either[ConfirmAccountCreation, ConfirmMoneyTransfer] = {
    val known = pool.accounts
    if (known.size < 2) {
      if (pool.outstanding < 20) creation()
      else Right(ConfirmMoneyTransfer(uuid(), "x", 100L + random.nextInt(10000), BankRules.Cash, BankRules.SeededIban, "deposit"))
    } else if (random.nextInt(20) == 0) creation()
    else Right(transfer(known))
  }

  private def transfer(known: Vector[(String, String)]): ConfirmMoneyTransfer = {
    val (to, _) = known(random.nextInt(known.size))
    val (from, token) = known(random.nextInt(known.size))
    def balance(iban: String) = balances.getOrElse(iban, 0L)
    // A failure by token or funds needs a receiver other than the sender, or the bank answers "from and to can't be same".
    def other = known.iterator.map(_._1).filter(_ != from).drop(random.nextInt(known.size - 1)).next()
    if (mustFail()) (failing % 4) match {
      case 0 => ConfirmMoneyTransfer(uuid(), if (token == "9" * 20) "8" * 20 else "9" * 20, 100, from, other, "must fail: invalid token")
      case 1 => ConfirmMoneyTransfer(uuid(), token, balance(from) + 1000000000L, from, other, "must fail: insufficient funds")
      case 2 => val (a, b) = strangers(); ConfirmMoneyTransfer(uuid(), "x", 100, a, b, "must fail: both unknown")
      case _ => ConfirmMoneyTransfer(uuid(), token, 100, from, from, "must fail: from equals to")
    }
    else if (from == to || balance(from) < 1000 || random.nextInt(3) == 0) {
      val amount = 1000L + random.nextInt(100000)
      balances(to) = balance(to) + amount
      ConfirmMoneyTransfer(uuid(), "x", amount, BankRules.Cash, to, "deposit")
    } else {
      // Never more than this load put there: other clients' transfers may take from it too, and the limit is far.
      val amount = 1L + random.nextInt(math.min(balance(from), 50000L).toInt)
      balances(from) = balance(from) - amount
      balances(to) = balance(to) + amount
      ConfirmMoneyTransfer(uuid(), token, amount, from, to, "transfer")
    }
  }
}

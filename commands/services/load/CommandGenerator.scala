package bankops.services.load

import java.util.UUID
import scala.util.Random

import bankops.services.bank.{Atype, BankRules, ConfirmAccountCreation, ConfirmMoneyTransfer}

/** Realistic bank commands: accounts are opened, cash is deposited, money moves between the generated
  * accounts, and exactly `failShare` of the transfers break a rule that fails them whatever the database
  * holds (from equals to, or an invalid from-account). Deterministic for a seed.
  */
final class CommandGenerator(seed: Long, failShare: Double) {
  private val random = new Random(seed)
  private var accounts = Vector.empty[String]
  private var transfers = 0L
  private var failing = 0L

  private def uuid(): UUID = new UUID(random.nextLong(), random.nextLong())

  private def mustFail(): Boolean = {
    transfers += 1
    // Spread failures evenly: exactly floor(transfers * share) of the first `transfers` fail.
    val due = math.floor(transfers * failShare).toLong
    if (due > failing) { failing += 1; true }
    else false
  }

  /** One command: an account creation while few accounts exist (and now and then), else a transfer. */
  def next(): Either[ConfirmAccountCreation, ConfirmMoneyTransfer] =
    if (accounts.size < 10 || random.nextInt(20) == 0) {
      accounts = accounts :+ BankRules.iban(accounts.size.toLong + 1 + random.nextInt(1000) * 1000000L)
      Left(ConfirmAccountCreation(uuid(), if (random.nextBoolean()) Atype.Auto else Atype.Manual))
    } else Right(transfer())

  private def transfer(): ConfirmMoneyTransfer = {
    val toIndex = random.nextInt(accounts.size)
    val to = accounts(toIndex)
    val amount = 100L + random.nextInt(100000)
    if (mustFail()) {
      val from = if (random.nextBoolean()) to else to.take(2) + (if (to.charAt(2) == '9') '0' else '9') + to.drop(3)
      ConfirmMoneyTransfer(uuid(), BankRules.token(random), amount, from, to, "must fail")
    } else if (random.nextInt(3) == 0) ConfirmMoneyTransfer(uuid(), BankRules.token(random), amount, BankRules.Cash, to, "deposit")
    else {
      // Any other account: an index drawn from the others, shifted past `to`.
      val i = random.nextInt(accounts.size - 1)
      val from = accounts(if (i >= toIndex) i + 1 else i)
      ConfirmMoneyTransfer(uuid(), BankRules.token(random), amount, from, to, "transfer")
    }
  }
}

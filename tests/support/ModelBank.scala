package bankops.support

import scala.collection.mutable
import scala.util.Random

import bankops.services.bank.ConfirmMoneyTransfer

/** The bank's rules written out again for tests, from commands/DESIGN.md rather than from the code under test: an oracle
  * for what the bank does with a transfer. Account numbers are Dutch IBANs of bank code OPEN (`NLkkOPEN0ddddddddd`)
  * whose check digits pass ISO 13616's mod-97 test; `cash` is money from outside the bank. A transfer fails when:
  * its amount is not positive; from is neither cash nor a valid account number; from equals to; from is an account
  * here and the token is not its token, or the amount would take it below its limit (-50,000); neither from nor to
  * is an account here. Otherwise from is debited (when it is an account here) and to credited (when it is).
  */
final class ModelBank(random: Random) {
  import ModelBank.Account
  private val accounts = mutable.Map(ModelBank.SeededIban -> new Account("0" * 20, Long.MaxValue / 4))
  private var numbered = 0L

  /** A new account: its number (counted up from 1) and a token of 20 digits. */
  def open(): (String, String) = {
    numbered += 1
    val iban = ModelBank.iban(numbered)
    val token = List.fill(20)(random.nextInt(10)).mkString
    accounts(iban) = new Account(token, 0L)
    (iban, token)
  }

  def balance(iban: String): Option[Long] = accounts.get(iban).map(_.amount)

  /** Applies the transfer: None when it is confirmed, else the reason the bank gives. */
  def transfer(t: ConfirmMoneyTransfer): Option[String] = {
    val from = accounts.get(t.from)
    val to = accounts.get(t.to)
    if (t.amount <= 0) Some("amount must be positive")
    else if (t.from != ModelBank.Cash && !ModelBank.validIban(t.from)) Some("from is invalid")
    else if (t.from == t.to) Some("from and to can't be same for transfer")
    else if (from.exists(_.token != t.token)) Some("invalid token")
    else if (from.exists(_.amount - t.amount < ModelBank.Limit)) Some("insufficient funds")
    else if (from.isEmpty && to.isEmpty) Some("both to and from not known at this bank")
    else {
      from.foreach(a => a.amount -= t.amount)
      to.foreach(a => a.amount += t.amount)
      None
    }
  }
}

object ModelBank {
  private final class Account(val token: String, var amount: Long)
  val Cash = "cash"
  val Limit = -50000L
  val SeededIban = "NL66OPEN0000000000"

  /** ISO 13616: the first four characters moved to the end, letters as 10..35, the number mod 97 is 1. */
  private def mod97(s: String): Int =
    BigInt((s.drop(4) + s.take(4)).map(c => if (c.isLetter) (c - 'A' + 10).toString else c.toString).mkString).mod(97).toInt

  def validIban(s: String): Boolean = s.matches("NL\\d{2}OPEN0\\d{9}") && mod97(s) == 1

  /** The account number for `n` (below 10^9): check digits 98 minus the mod 97 of the number with `00` in their place. */
  def iban(n: Long): String = {
    val digits = f"$n%010d"
    f"NL${98 - mod97(s"NL00OPEN$digits")}%02dOPEN$digits"
  }

  /** Whether the bank fails a transfer whatever accounts it holds. */
  def failsWithoutAccounts(t: ConfirmMoneyTransfer): Boolean =
    t.amount <= 0 || t.from == t.to || (t.from != Cash && !validIban(t.from))
}

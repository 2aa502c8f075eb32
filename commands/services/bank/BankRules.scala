package bankops.services.bank

import scala.util.Random

/** The bank's rules for account numbers and tokens (commands/DESIGN.md, The bank's rules). */
object BankRules {
  val Cash = "cash"
  /** An account's overdraft limit unless set otherwise (`balance.lmt`). */
  val DefaultLimit = -50000L
  /** The one account `balancedb` starts with, which funds the rest. */
  val SeededIban = "NL66OPEN0000000000"
  val SeededToken = "00000000000000000000"
  val SeededAmount = 100000000000000000L
  private val Iban = """NL(\d\d)OPEN(0\d{9})""".r

  /** Check digits: 98 - (N mod 97), N = 24251423 ("OPEN" as numbers) ++ the ten digits ++ 232100 ("NL00"). */
  def checkDigits(tenDigits: String): String = {
    val n = BigInt(s"24251423${tenDigits}232100")
    f"${98 - (n mod 97).toInt}%02d"
  }

  def isValidIban(s: String): Boolean = s match {
    case Iban(check, digits) => checkDigits(digits) == check
    case _ => false
  }

  /** An account number for a number below 10^9 (the first of the ten digits is 0). */
  def iban(n: Long): String = {
    val digits = f"$n%010d"
    s"NL${checkDigits(digits)}OPEN$digits"
  }

  def token(random: Random): String = List.fill(20)(random.nextInt(10)).mkString
}

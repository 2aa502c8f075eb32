package bankops.services.bank

import scala.util.Random

/** The bank's rules: account numbers (Dutch-style IBANs of bank OPEN with valid check digits), tokens, the overdraft
  * limit, and the transfer checks that need no account (the handler applies them, the load generators aim at them).
  */
object BankRules {
  val Cash = "cash"
  /** An account's overdraft limit unless set otherwise (`balance.lmt`): every new account gets it. */
  val DefaultLimit = -50000L
  /** The one account `balancedb` starts with, which funds the rest. */
  val SeededIban = "NL66OPEN0000000000"
  val SeededToken = "00000000000000000000"
  val SeededAmount = 100000000000000000L
  /** Check digits: 98 - (N mod 97), N = 24251423 ("OPEN" as numbers) ++ the ten digits ++ 232100 ("NL00"). N has 24
    * digits, so its remainder is taken digit by digit (the handler checks every transfer's account numbers: BigInt and
    * a format string per check were a tenth of its rules' time).
    */
  def checkDigits(tenDigits: String): String = {
    def mod97(r: Int, digits: String): Int = digits.foldLeft(r)((r, c) => (r * 10 + (c - '0')) % 97)
    val c = 98 - mod97(mod97(mod97(0, "24251423"), tenDigits), "232100")
    if (c < 10) s"0$c" else c.toString
  }

  /** NL, two check digits, OPEN, ten digits of which the first is 0, and the check digits right. */
  def isValidIban(s: String): Boolean = {
    def digits(from: Int, until: Int) = (from until until).forall(i => s.charAt(i) >= '0' && s.charAt(i) <= '9')
    s.length == 18 && s.startsWith("NL") && s.startsWith("OPEN", 4) && s.charAt(8) == '0' && digits(2, 4) && digits(8, 18) &&
    checkDigits(s.substring(8)) == s.substring(2, 4)
  }

  /** An account number for a number below 10^9 (the first of the ten digits is 0). */
  def iban(n: Long): String = {
    val digits = n.toString.reverse.padTo(10, '0').reverse
    s"NL${checkDigits(digits)}OPEN$digits"
  }

  /** Account numbers from here up (of the 10^9 the format allows) belong to other banks: the handler never draws them
    * for a new account, so the fixtures, the loads and the tests can pay to and from them knowing no account of this
    * bank holds one. Before this range was reserved a sandbox's handler could draw a fixture's outside account.
    */
  val OutsideFrom = 990000000L

  /** The number of a new account of this bank: uniform below [[OutsideFrom]]. */
  def accountNumber(random: java.util.Random): Long = random.nextInt(OutsideFrom.toInt).toLong

  /** Another bank's account number, `n` of the reserved range (`0 <= n < 10^9 - OutsideFrom`). */
  def outsideIban(n: Long): String = {
    require(n >= 0 && OutsideFrom + n < 1000000000L, s"outside account $n is not in the reserved range")
    iban(OutsideFrom + n)
  }

  /** Whether `s` is a valid account number in the reserved range: one no account of this bank can hold. */
  def isOutside(s: String): Boolean = isValidIban(s) && s.substring(8).toLong >= OutsideFrom

  def token(random: Random): String = List.fill(20)(random.nextInt(10)).mkString

  /** The most UTF-8 bytes of a transfer's `description` and of its `to` (an outside account may be any text): both are
    * copied into BalanceChanged, which must fit the handler's producer (1 MiB a record) with room to spare.
    */
  val MaxTextBytes = 65536

  /** The largest dead letter the handler publishes as it came (key, value and headers); a larger one is cut down. */
  val MaxDeadLetterBytes: Int = 512 * 1024

  /** Whether `s` takes more than [[MaxTextBytes]] in UTF-8 (three bytes a char at most: short text is not encoded). */
  def tooLong(s: String): Boolean =
    s.length > MaxTextBytes || (s.length > MaxTextBytes / 3 && s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MaxTextBytes)

  /** Why a transfer fails before any account is looked at, in the order the handler checks: a description or `to`
    * too long to publish, a non-positive amount, a `from` that is neither cash nor a valid account number, `from`
    * equal to `to`.
    */
  def refusal(t: ConfirmMoneyTransfer): Option[String] =
    if (tooLong(t.description) || tooLong(t.to)) Some(FailureReasons.TextTooLong)
    else if (t.amount <= 0) Some(FailureReasons.NotPositive)
    else if (t.from != Cash && !isValidIban(t.from)) Some(FailureReasons.FromInvalid)
    else if (t.from == t.to) Some(FailureReasons.SameAccounts)
    else None
}

package bankops.services.bank

import io.circe.parser.parse

/** The range of account numbers reserved for other banks: the handler never draws one, and every outside account the
  * fixtures pay to or from lies in it, so no account of the bank can take a fixture's expected outcome away.
  */
class BankRulesSuite extends munit.FunSuite {
  /** A generator that answers every bound with its highest value: the top of what a draw can give. */
  private object Highest extends java.util.Random { override def nextInt(bound: Int): Int = bound - 1 }

  test("a new account's number is never in the reserved range, however the draw falls") {
    assert(BankRules.accountNumber(Highest) < BankRules.OutsideFrom)
    assert(!BankRules.isOutside(BankRules.iban(BankRules.accountNumber(Highest))))
    val random = new java.util.Random(7)
    assert((1 to 10000).forall(_ => !BankRules.isOutside(BankRules.iban(BankRules.accountNumber(random)))))
  }

  test("outside accounts: valid numbers in the reserved range; a number past it is refused") {
    assert(BankRules.isOutside(BankRules.outsideIban(0)))
    assert(BankRules.isOutside(BankRules.outsideIban(1000000000L - BankRules.OutsideFrom - 1)))
    assert(!BankRules.isOutside(BankRules.iban(BankRules.OutsideFrom - 1)))
    assert(!BankRules.isOutside(BankRules.SeededIban))
    assert(!BankRules.isOutside("NL00OPEN0990000000"), "wrong check digits")
    intercept[IllegalArgumentException](BankRules.outsideIban(1000000000L - BankRules.OutsideFrom))
    intercept[IllegalArgumentException](BankRules.outsideIban(-1))
  }

  test("the fixtures' accounts: the seeded one, cash, outside ones, or invalid on purpose; none the handler can draw") {
    val commands = os.read.lines(bankops.support.Repo.root / "fixtures" / "commands.jsonl").filter(_.trim.nonEmpty)
    val accounts = commands.flatMap { line =>
      val v = parse(line).flatMap(_.hcursor.downField("value").as[io.circe.JsonObject]).fold(e => fail(s"$line: $e"), identity)
      List("from", "to").flatMap(k => v(k).flatMap(_.asString))
    }.toSet
    val drawable = accounts.filter(a => BankRules.isValidIban(a) && a != BankRules.SeededIban && !BankRules.isOutside(a))
    assertEquals(drawable, Set.empty[String])
    assert(accounts.count(BankRules.isOutside) > 50, s"the fixtures pay to and from outside accounts: $accounts")
  }
}

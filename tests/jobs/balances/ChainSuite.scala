package bankops.jobs.balances

import org.scalacheck.{Gen, Prop}

import bankops.services.bank.BankRules

class ChainSuite extends bankops.support.PropertySuite {
  private val iban = BankRules.iban(4242L)

  private def fold(iban: String, events: List[(Long, Long)]): AccountChain =
    events.zipWithIndex.foldLeft(AccountChain.start(iban)) { case (c, ((nb, cb), i)) => c.add(nb, cb, 0, i.toLong) }

  private val changes = Gen.listOf(Gen.chooseNum(-100000L, 100000L))

  property("a chain built by the rule never breaks and ends at the sum of its changes (from the seeded amount for the seeded account)") {
    Prop.forAll(changes, Gen.oneOf(iban, BankRules.SeededIban)) { (cs, account) =>
      val start = AccountChain.initial(account)
      val events = cs.scanLeft(start)(_ + _).tail.zip(cs)
      val c = fold(account, events)
      assertEquals(c.firstBreak, None)
      assertEquals(c.last, start + cs.sum)
      assertEquals(c.events, cs.size.toLong)
    }
  }

  property("one altered new_balance breaks the chain at exactly that offset") {
    Prop.forAll(Gen.nonEmptyListOf(Gen.chooseNum(1L, 1000L)).flatMap(cs => Gen.chooseNum(0, cs.size - 1).map(cs -> _))) { case (cs, at) =>
      val events = cs.scanLeft(0L)(_ + _).tail.zip(cs).zipWithIndex.map { case ((nb, cb), i) => if (i == at) (nb + 1, cb) else (nb, cb) }
      assertEquals(fold(iban, events).firstBreak.map(_.offset), Some(at.toLong))
    }
  }

  property("comparison: equal maps agree; each kind of difference gives its finding") {
    Prop.forAll(Gen.listOfN(20, Gen.chooseNum(0L, 999999L)).map(_.distinct)) { ns =>
      val accounts = ns.map(n => BankRules.iban(n))
      val chains = accounts.map(a => a -> AccountChain(1, 500, None)).toMap
      val rows = accounts.map(a => a -> DbAccount(a, 500, -50000)).toMap
      assertEquals(Comparison.findings(chains, rows), Nil)
      if (accounts.size >= 3) {
        val (a, b, c) = (accounts(0), accounts(1), accounts(2))
        val found = Comparison.findings(chains,
          rows.updated(a, DbAccount(a, 501, -50000)) - b + ("NL00OPEN0000000001" -> DbAccount("NL00OPEN0000000001", 0, -50000)) +
            (c -> DbAccount(c, 500, 600))).map(f => f.kind -> f.iban).toSet
        assertEquals(found, Set("amount-mismatch" -> a, "missing-in-db" -> b, "invalid-iban" -> "NL00OPEN0000000001", "below-limit" -> c))
      }
    }
  }

  test("the seeded account without events is fine; another account with money but no events is missing-events") {
    assertEquals(Comparison.forAccount(BankRules.SeededIban, None, Some(DbAccount(BankRules.SeededIban, BankRules.SeededAmount, -50000))), Nil)
    assertEquals(Comparison.forAccount(iban, None, Some(DbAccount(iban, 10, -50000))).map(_.kind), List("missing-events"))
  }

  test("an account number held by two rows is a duplicate-iban finding, first in the list, whatever the amounts say") {
    val twice = Comparison.forAccount(iban, Some(AccountChain(1, 500, None)), Some(DbAccount(iban, 500, -50000, rows = 2)))
    assertEquals(twice.map(_.kind), List("duplicate-iban"))
    assertEquals(twice.head.json.hcursor.get[Int]("rows"), Right(2))
    assertEquals(Finding.kinds.head, "duplicate-iban")
  }
}

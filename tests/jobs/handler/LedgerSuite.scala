package bankops.jobs.handler

import java.util.UUID

import bankops.services.bank._

class LedgerSuite extends munit.FunSuite {
  private val a = Account(BankRules.iban(1), "11111111111111111111", 1000, -50000)
  private val b = Account(BankRules.iban(2), "22222222222222222222", 0, -50000)
  private val outside = BankRules.iban(3)
  private val known = Known(Map.empty, Map.empty, Map(a.iban -> a, b.iban -> b))
  private def t(token: String, amount: Long, from: String, to: String) = ConfirmMoneyTransfer(UUID.randomUUID(), token, amount, from, to, "d")
  private def run(cs: Ledger.Command*) = Ledger(cs.toVector, known, Map.empty)

  test("each failure reason, word for word, in the original's order of checks") {
    val cases = List(
      t(a.token, 1, "nobody", b.iban) -> FailureReasons.FromInvalid,
      t(a.token, 1, "NL00OPEN0000000001", b.iban) -> FailureReasons.FromInvalid,
      t(a.token, 1, a.iban, a.iban) -> FailureReasons.SameAccounts,
      t(b.token, 1, a.iban, b.iban) -> FailureReasons.InvalidToken,
      t(a.token, 51001, a.iban, b.iban) -> FailureReasons.InsufficientFunds,
      t(a.token, 1, outside, BankRules.iban(4)) -> FailureReasons.BothUnknown,
      t(a.token, 1, "cash", outside) -> FailureReasons.BothUnknown,
      t(a.token, 1, "cash", "cash") -> FailureReasons.SameAccounts
    )
    assertEquals(cases.map { case (c, _) => Ledger.transfer(c, known.accounts)._1 }, cases.map(c => Some(c._2)))
    assertEquals(Ledger.transfer(t(a.token, 51000, a.iban, b.iban), known.accounts)._1, None, "down to the limit exactly is allowed")
    assertEquals(run(Right(t(b.token, 1, a.iban, b.iban))).counts.failed, Map(FailureReasons.InvalidToken -> 1L))
  }

  test("balance changes: one for a deposit or a transfer out of the bank, two between local accounts, in debit-credit order") {
    val deposit = t("x", 50, "cash", b.iban)
    val out = t(a.token, 10, a.iban, outside)
    val between = t(a.token, 100, a.iban, b.iban)
    val fromOutside = t("x", 7, outside, a.iban)
    val applied = run(Right(deposit), Right(out), Right(between), Right(fromOutside))
    val changes = applied.emitted.collect { case Emitted.Changed(c) => c }
    assertEquals(changes,
      Vector(
        BalanceChanged(b.iban, 50, 50, "cash", "d"),
        BalanceChanged(a.iban, 990, -10, outside, "d"),
        BalanceChanged(a.iban, 890, -100, b.iban, "d"), BalanceChanged(b.iban, 150, 100, a.iban, "d"),
        BalanceChanged(a.iban, 897, 7, outside, "d")))
    assertEquals(applied.amounts, Map(a.iban -> 897L, b.iban -> 150L))
    assertEquals(applied.counts.confirmed, 4L)
    assertEquals(applied.transfers.map(_._2), Vector(None, None, None, None))
    // Feedback follows each transfer's balance changes.
    assert(applied.emitted.last.isInstanceOf[Emitted.Confirmed])
  }

  test("a command seen before (in the database or earlier in the batch) gets the same feedback and changes nothing") {
    val seenOk = t(a.token, 10, a.iban, b.iban)
    val seenFailed = t(a.token, 10, a.iban, b.iban)
    val creation = ConfirmAccountCreation(UUID.randomUUID(), Atype.Manual)
    val earlier = known.copy(transfers = Map(seenOk.id -> None, seenFailed.id -> Some(FailureReasons.InvalidToken)),
      creations = Map(creation.id -> CreationRow(creation.id, Some(outside), Some("3" * 20), "MANUAL", None)))
    val again = t(a.token, 5, "cash", a.iban)
    val applied = Ledger(Vector(Right(seenOk), Right(seenFailed), Left(creation), Right(again), Right(again)), earlier, Map.empty)
    assertEquals(applied.emitted,
      Vector(
        Emitted.Confirmed(MoneyTransferConfirmed(seenOk.id)),
        Emitted.TransferFailed(MoneyTransferFailed(seenFailed.id, FailureReasons.InvalidToken)),
        Emitted.Created(AccountCreationConfirmed(creation.id, outside, "3" * 20, Atype.Manual)),
        Emitted.Changed(BalanceChanged(a.iban, 1005, 5, "cash", "d")),
        Emitted.Confirmed(MoneyTransferConfirmed(again.id)),
        Emitted.Confirmed(MoneyTransferConfirmed(again.id))))
    assertEquals(applied.transfers.map(_._1), Vector(again.id))
    assertEquals(applied.counts.repeated, 4L)
  }

  test("account creation: the drawn iban and token; none found is the original's failure; a new account takes transfers at once") {
    val ok = ConfirmAccountCreation(UUID.randomUUID(), Atype.Auto)
    val unlucky = ConfirmAccountCreation(UUID.randomUUID(), Atype.Manual)
    val iban = BankRules.iban(77)
    val deposit = t("x", 25, "cash", iban)
    val applied = Ledger(Vector(Left(ok), Left(unlucky), Right(deposit)), known, Map(ok.id -> Some(iban -> "4" * 20), unlucky.id -> None))
    assertEquals(applied.newAccounts, Vector(Account(iban, "4" * 20, 0, -50000) -> "AUTO"))
    assertEquals(applied.amounts, Map(iban -> 25L))
    assertEquals(applied.creations.map(_.reason), Vector(None, Some(FailureReasons.IbanExists)))
    assertEquals(applied.emitted.take(2),
      Vector(
        Emitted.Created(AccountCreationConfirmed(ok.id, iban, "4" * 20, Atype.Auto)),
        Emitted.CreationFailed(AccountCreationFailed(unlucky.id, FailureReasons.IbanExists))))
    assertEquals(applied.counts.created, 1L)
    assertEquals(applied.counts.creationFailed, 1L)
  }

  test("amounts that would leave a bigint fail instead of wrapping around") {
    val rich = a.copy(amount = Long.MaxValue - 5)
    assertEquals(Ledger.transfer(t("x", 10, "cash", rich.iban), Map(rich.iban -> rich))._1, Some(FailureReasons.OutOfRange))
  }

  test("zero and negative amounts fail, before any other check: no money moves backwards with the payer's token") {
    val cases =
      List(t("x", -500, "cash", a.iban), t("x", 0, "cash", a.iban), t(b.token, -10, a.iban, b.iban), t(a.token, Long.MinValue, a.iban, b.iban),
        t(a.token, -1, "nobody", b.iban))
    cases.foreach(c => assertEquals(Ledger.transfer(c, known.accounts), (Some(FailureReasons.NotPositive), Nil), c.toString))
    val applied = run(cases.map(Right(_)): _*)
    assertEquals(applied.amounts, Map.empty[String, Long])
    assertEquals(applied.counts.failed, Map(FailureReasons.NotPositive -> cases.size.toLong))
  }

  test("a description or an outside `to` over 64 KiB of UTF-8 fails before any other check; 64 KiB exactly is allowed") {
    val max = BankRules.MaxTextBytes
    def described(d: String, to: String = b.iban) = ConfirmMoneyTransfer(UUID.randomUUID(), "x", 100, "cash", to, d)
    assertEquals(Ledger.transfer(described("d" * max), known.accounts)._1, None)
    assertEquals(Ledger.transfer(described("d" * (max + 1)), known.accounts)._1, Some(FailureReasons.TextTooLong))
    // Three bytes a char: under the limit in chars, over it in bytes.
    assertEquals(Ledger.transfer(described("\u20ac" * (max / 3 + 1)), known.accounts)._1, Some(FailureReasons.TextTooLong))
    assertEquals(Ledger.transfer(ConfirmMoneyTransfer(UUID.randomUUID(), a.token, -5, a.iban, "o" * (max + 1), "d"), known.accounts)._1,
      Some(FailureReasons.TextTooLong))
  }

  test("a dead letter too large to publish is cut down to its first 64 KiB, saying what it had; one that fits is kept whole") {
    val big = Some(Array.fill[Byte](Outputs.MaxDeadLetterBytes)(1))
    assertEquals(Outputs.cut(Some(Array[Byte](1)), Some(Array[Byte](2)), Nil), None)
    assertEquals(Outputs.cut(Some(Array[Byte](1)), big, Nil).map(_.takeWhile(_ != ':')),
      Some(s"value ${Outputs.MaxDeadLetterBytes} bytes, key 1 bytes, headers 0 bytes"))
  }

  test("a command id is unique across kinds: a transfer reusing a creation's id (or the reverse) gets that outcome again, nothing applied") {
    val creation = ConfirmAccountCreation(UUID.randomUUID(), Atype.Manual)
    val transfer = t(a.token, 10, a.iban, b.iban)
    val earlier = known.copy(creations = Map(creation.id -> CreationRow(creation.id, Some(outside), Some("3" * 20), "MANUAL", None)),
      transfers = Map(transfer.id -> Some(FailureReasons.InvalidToken)))
    val reusing =
      Vector[Ledger.Command](Right(t("x", 99, "cash", a.iban).copy(id = creation.id)), Left(ConfirmAccountCreation(transfer.id, Atype.Auto)))
    val applied = Ledger(reusing, earlier, Map(transfer.id -> Some(BankRules.iban(55) -> "5" * 20)))
    assertEquals(applied.emitted,
      Vector(
        Emitted.Created(AccountCreationConfirmed(creation.id, outside, "3" * 20, Atype.Manual)),
        Emitted.TransferFailed(MoneyTransferFailed(transfer.id, FailureReasons.InvalidToken))))
    assert(!applied.writes)
    assertEquals(applied.counts.repeated, 2L)
    // Within one batch too: the second command with an id is the first's repeat, whatever its kind.
    val fresh = ConfirmAccountCreation(UUID.randomUUID(), Atype.Auto)
    val same =
      Ledger(Vector(Left(fresh), Right(t("x", 5, "cash", a.iban).copy(id = fresh.id))), known, Map(fresh.id -> Some(BankRules.iban(56) -> "6" * 20)))
    assertEquals(same.amounts, Map.empty[String, Long])
    assertEquals(same.emitted.map(_.getClass.getSimpleName), Vector("Created", "Created"))
  }

  test("prepared transaction ids: short, per group and topics, naming the marker, parsed back; an older handler's form is not") {
    val prefix = s"bankops-handler:${HandlerLoop.hash("g\u0000commands\u0000command_feedback")}:"
    assert(prefix.length < 40)
    assertNotEquals(HandlerLoop.hash("g\u0000commands"), HandlerLoop.hash("h\u0000commands"))
    assertEquals(HandlerLoop.parseGid(prefix, s"${prefix}7@123456"), Some(Marker(7, 123456L)))
    val batch = HandlerLoop.batchId()
    assertEquals(HandlerLoop.parseGid(prefix, s"${prefix}7@123456:$batch"), Some(Marker(7, 123456L, Some(batch))))
    assertEquals(batch.length, 16)
    assert(s"${prefix}8@${Long.MaxValue}:$batch".length < 200)
    assertEquals(HandlerLoop.parseGid(prefix, s"${prefix}7@1:nothex"), None)
    assertEquals(HandlerLoop.parseGid("bankops-handler:other:", s"${prefix}7@1"), None)
    assertEquals(HandlerLoop.parseGid(prefix, s"${prefix}x@1"), None)
    assertEquals(HandlerLoop.parseGid(prefix, s"${prefix}7:123456"), None)
  }
}

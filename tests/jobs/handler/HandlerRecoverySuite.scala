package bankops.jobs.handler

import cats.effect.IO
import io.circe.Json

import scala.concurrent.duration._

import bankops.support.{BankFixture, IOSuite, SandboxFixture, TcpRelay, TopologyFiles}
import bankops.support.BankFixture.{creation, id, transfer}
import bankops.support.OnSandbox

/** Every crash point and race of the handler's two-phase commit, each made to happen deterministically (the fault
  * points of [[HandlerFaults]]), each followed by the same checks: one outcome per command, `cac`/`cmt` as the
  * feedback says, no prepared transaction left, `balances validate` clean.
  */
class HandlerRecoverySuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 6.minutes

  private def str(j: Json, field: String) = j.hcursor.get[String](field).toOption.get
  private val preparedSql = "SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()"

  /** The exactly-once checks for these command ids; the feedback by id. */
  private def consistent(bank: BankFixture, ids: Set[String], logs: => String): IO[Map[String, (String, Json)]] =
    for {
      feedback <- bank.awaitFeedback(ids)
      // A last COMMIT PREPARED follows the feedback by a moment: one still prepared after 30 s is a finding.
      prepared <- (IO.sleep(100.millis) >> bank.query(preparedSql)(_.getLong(1))).iterateUntil(_.forall(_ == 0)).timeoutTo(30.seconds,
        bank.query(preparedSql)(_.getLong(1)))
      cac <- bank.query("SELECT uuid::text, iban FROM cac")(rs => rs.getString(1) -> Option(rs.getString(2)))
      cmt <- bank.query("SELECT uuid::text, reason FROM cmt")(rs => rs.getString(1) -> Option(rs.getString(2)))
      validated <- bank.validate
    } yield {
      val outcomes = feedback.groupBy(_._1).map { case (i, fs) => i -> fs.map(f => (f._2, f._3)).distinct }
      assertEquals(outcomes.filter(_._2.size > 1).keys.toList, Nil, s"commands with two outcomes\n$logs")
      val byId = outcomes.map { case (i, o) => i -> o.head }
      val (cacMap, cmtMap) = (cac.toMap, cmt.toMap)
      ids.foreach { i =>
        byId(i) match {
          case ("AccountCreationConfirmed", v) => assertEquals(cacMap.get(i), Some(Some(str(v, "iban"))), s"$i\n$logs")
          case ("MoneyTransferConfirmed", _) => assertEquals(cmtMap.get(i), Some(None), s"$i\n$logs")
          case ("MoneyTransferFailed", v) => assertEquals(cmtMap.get(i), Some(Some(str(v, "reason"))), s"$i\n$logs")
          case (other, v) => fail(s"$i: $other ${v.noSpaces}")
        }
      }
      assertEquals(prepared, List(0L), logs)
      assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      byId
    }

  /** A second handler's own commands topic `other` and group (the bank's group + `-2`), granted to the handler identity
    * as the fixture's are: another handler of the same bank (database and outputs), reading other commands.
    */
  private def secondCommandsTopic(bank: BankFixture, other: String): IO[Unit] = {
    val topology = TopologyFiles.write(s"""{"topics": {"$other": {"partitions": 1, "replicationFactor": 3, "records": [
      {"type": "nl.openweb.data.ConfirmAccountCreation", "key": "id"}, {"type": "nl.openweb.data.ConfirmMoneyTransfer", "key": "id"}]},
      "$other.dlq": {"partitions": 1, "replicationFactor": 3, "records": []}},
      "access": {"User:handler": [{"role": "consumer", "topics": ["$other"], "group": "${bank.group}-2"},
        {"role": "transactional-producer", "topics": ["$other.dlq"], "transactionalIdPrefix": "${bank.group}-2"}]}}""")
    SandboxFixture.cli("apply", "--topology", topology.toString).flatMap(applied =>
      IO.raiseUnless(applied.code == 0)(new AssertionError(applied.err)))
  }

  private def halted(p: os.SubProcess): IO[Int] = IO.blocking { p.waitFor(60000); p.exitCode() }
  private def logs(files: os.Path*): String = files.map(BankFixture.tail).mkString("\n---\n")

  /** An account made by the handler, then a deposit into it and a transfer out of it: the commands of each test. */
  private def scenario[H](bank: BankFixture, start: IO[H], log: os.Path, more: => IO[Unit] = IO.unit,
                          sent: => IO[Unit] = IO.unit): IO[(H, Map[String, (String, Json)])] = {
    val (account, deposit, move) = (id(), id(), id())
    for {
      h <- start
      _ <- bank.send(List(creation(account)))
      created <- bank.awaitFeedback(Set(account), 150.seconds)
      (iban, token) = bank.accounts(created)(account)
      _ <- more
      // `sent` starts before the send (connected, asking) and is waited for after it: what it sees of the send is not
      // late by its own start.
      _ <- sent.background.use(seen =>
        bank.send(List(transfer(deposit, "x", 700, "cash", iban, deposit),
            transfer(move, token, 200, iban, bankops.services.bank.BankRules.SeededIban, move))) >> seen.flatMap(_.embedNever))
      checked <- consistent(bank, Set(account, deposit, move), logs(log))
    } yield {
      assertEquals(checked(deposit)._1, "MoneyTransferConfirmed")
      assertEquals(checked(move)._1, "MoneyTransferConfirmed")
      (h, checked)
    }
  }

  test(
    "a handler held after PREPARE while a second handler starts: the second waits for Kafka's outcome instead of " +
      "rolling back, and the batch counts once") {
    BankFixture.using("held") { bank =>
      val (logA, logB) = (os.temp(prefix = "held-a", suffix = ".log"), os.temp(prefix = "held-b", suffix = ".log"))
      // A is held after PREPARE until B, started meanwhile, says it waits for Kafka's outcome of A's batch; A's
      // transaction is given 60 s before the coordinator aborts it.
      val held = BankFixture.hold("after-prepare")
      val secondStarts = BankFixture.awaitLog(logA, "pausing after-prepare") >> bank.runHandler("b", logB).flatMap(_ =>
        BankFixture.awaitLog(logB, "still open on Kafka")).guarantee(held.release)
      // Both handlers are ended by BankFixture.using.
      for {
        a <- bank.runHandler("a", logA, env = held.env, patient = true)
        _ <- BankFixture.awaitReady(a, logA)
        _ <- secondStarts.start
        _ <- scenario(bank, IO.pure(a), logA)
        text = os.read(logA) + os.read(logB)
      } yield {
        assert(text.contains("still open on Kafka"), logs(logA, logB))
        assert(!text.contains("rolled back"), logs(logA, logB))
      }
    }
  }

  List("after-kafka-commit" -> "published by Kafka, committed", "before-kafka-commit" -> "not published, rolled back").foreach {
    case (point, settled) =>
      test(s"Kafka's answer to the commit lost ($point): the handler's own recovery finds the batch $settled, every command once") {
        BankFixture.using("lost") { bank =>
          val log = os.temp(prefix = "lost", suffix = ".log")
          scenario(bank, bank.runHandler("lost", log, env = Map("BANKOPS_HANDLER_LOSE" -> point)), log).flatMap { case (h, _) =>
            h.stop.map { _ =>
              val text = os.read(log)
              assert(text.contains(s"losing Kafka's answer $point"), text)
              assert(text.contains(settled), text)
            }
          }
        }
      }
  }

  test("COMMIT PREPARED held on the committer's thread while the next batch needs the account it created: that batch waits for it, " +
    "every command once") {
    BankFixture.using("committer") { bank =>
      val log = os.temp(prefix = "committer", suffix = ".log")
      // The creating batch's COMMIT PREPARED is held until the batch with the deposit and the transfer waits for its rows.
      val held = BankFixture.hold("before-commit-prepared")
      scenario(bank, bank.runHandler("c", log, env = held.env), log, sent = bank.awaitLockWaiter().guarantee(held.release)).flatMap {
        case (h, _) =>
          h.stop.map { _ =>
            val text = os.read(log)
            assert(text.contains("pausing before-commit-prepared"), text)
            assert(!text.contains("batch failed"), text)
          }
      }
    }
  }

  test("a crash on the committer's thread before COMMIT PREPARED: the restarted handler commits the batch by its marker, every command once") {
    BankFixture.using("commitcrash") { bank =>
      val log = os.temp(prefix = "commitcrash", suffix = ".log")
      val account = id()
      for {
        crashing <- IO.blocking(bank.spawnHandler("k", log, crash = Some("before-commit-prepared")))
        _ <- bank.send(List(creation(account)))
        code <- halted(crashing)
        prepared <- bank.query(preparedSql)(_.getLong(1))
        h <- bank.runHandler("k", log)
        _ <- BankFixture.awaitLog(log, "published by Kafka, committed")
        checked <- consistent(bank, Set(account), logs(log)).guarantee(h.stop.void)
      } yield {
        assertEquals(code, 137, logs(log))
        assertEquals(prepared, List(1L))
        assertEquals(checked(account)._1, "AccountCreationConfirmed")
      }
    }
  }

  test("SIGTERM after a published batch's COMMIT PREPARED failed, the database refusing connections: exit 0 naming the batch left " +
    "prepared; the next handler commits it by its marker, every command once") {
    BankFixture.using("commitlost") { bank =>
      val log = os.temp(prefix = "commitlost", suffix = ".log")
      val account = id()
      val db = bank.dbUrl.split('/').last.takeWhile(_ != '?')
      // On the sandbox's own database: the bank's refuses every connection while the test needs it to.
      def onSandboxDb[A](f: java.sql.Connection => A) = SandboxFixture.settings.flatMap(s => BankFixture.withDb(s.database.url.value)(f))
      def connections(allow: Boolean) = onSandboxDb { c =>
        c.createStatement().execute(s"ALTER DATABASE $db ALLOW_CONNECTIONS $allow")
        if (!allow) c.createStatement().executeQuery(s"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$db'").close()
      }
      // The batch is published; its COMMIT PREPARED waits here until the database is out of reach.
      val held = BankFixture.hold("before-commit-prepared")
      (for {
        h <- bank.runHandler("l", log, env = held.env)
        _ <- BankFixture.awaitReady(h, log)
        _ <- bank.send(List(creation(account)))
        _ <- BankFixture.awaitLog(log, "pausing before-commit-prepared")
        _ <- connections(allow = false) >> held.release
        _ <- BankFixture.awaitLog(log, "its database commit is pending")
        code <- h.stop
        prepared <- onSandboxDb { c =>
          val rs = c.createStatement().executeQuery(s"SELECT count(*) FROM pg_prepared_xacts WHERE database = '$db'")
          rs.next(); rs.getLong(1)
        }
        _ <- connections(allow = true)
        stopped = os.read(log)
        again <- bank.runHandler("l", log)
        _ <- BankFixture.awaitLog(log, "published by Kafka, committed")
        checked <- consistent(bank, Set(account), logs(log)).guarantee(again.stop.void)
      } yield {
        assertEquals(code, 0, logs(log))
        assertEquals(prepared, 1L, logs(log))
        assert(
          stopped.linesIterator.exists(l =>
            l.startsWith("handler: stopping with the batch bankops-handler:") &&
              l.contains(s"any handler of group ${bank.group} commits it by its marker")), logs(log))
        assertEquals(checked(account)._1, "AccountCreationConfirmed")
      }).guarantee(connections(allow = true))
    }
  }

  test("a crash after the database writes and before PREPARE: nothing is left prepared, the restarted handler applies the batch once") {
    BankFixture.using("unprepared") { bank =>
      val log = os.temp(prefix = "unprepared", suffix = ".log")
      val start = for {
        crashing <- IO.blocking(bank.spawnHandler("u", log, crash = Some("before-prepare")))
        _ <- BankFixture.awaitReady(crashing, log)
      } yield crashing
      val account = id()
      for {
        crashing <- start
        _ <- bank.send(List(creation(account)))
        code <- halted(crashing)
        prepared <- bank.query(preparedSql)(_.getLong(1))
        h <- bank.runHandler("u", log)
        checked <- consistent(bank, Set(account), logs(log)).guarantee(h.stop.void)
      } yield {
        assertEquals(code, 137, logs(log))
        assertEquals(prepared, List(0L))
        assertEquals(checked(account)._1, "AccountCreationConfirmed")
      }
    }
  }

  test("a crash during recovery (outcome decided, not yet settled), then another start: the batch is settled once, by its marker") {
    BankFixture.using("recrash") { bank =>
      val log = os.temp(prefix = "recrash", suffix = ".log")
      val account = id()
      for {
        first <- IO.blocking(bank.spawnHandler("r", log, crash = Some("after-kafka-commit")))
        _ <- bank.send(List(creation(account)))
        first <- halted(first)
        second <- IO.blocking(bank.spawnHandler("r", log, crash = Some("during-recovery"))).flatMap(halted)
        prepared <- bank.query(preparedSql)(_.getLong(1))
        h <- bank.runHandler("r", log)
        _ <- BankFixture.awaitLog(log, "published by Kafka, committed")
        checked <- consistent(bank, Set(account), logs(log)).guarantee(h.stop.void)
      } yield {
        assertEquals((first, second), (137, 137), logs(log))
        assertEquals(prepared, List(1L))
        assert(os.read(log).contains("crashing during-recovery"), logs(log))
        assertEquals(checked(account)._1, "AccountCreationConfirmed")
      }
    }
  }

  test(
    "an operator deletes the group's offsets while a published batch is still prepared: the handler commits it " +
      "anyway, and re-reading everything changes nothing") {
    BankFixture.using("deleted") { bank =>
      val log = os.temp(prefix = "deleted", suffix = ".log")
      val (account, deposit) = (id(), id())
      val deleteGroup = SandboxFixture.cli("groups", "delete", bank.group, "--yes").flatMap { r =>
        if (r.code == 0) IO.unit else IO.raiseError(new AssertionError(r.err))
      }.handleErrorWith(e => IO.sleep(1.second) >> IO.raiseError(e))
      for {
        crashing <- IO.blocking(bank.spawnHandler("d", log, crash = Some("after-kafka-commit")))
        _ <- bank.send(List(creation(account)))
        code <- halted(crashing)
        // The crashed static member leaves the group after its 10 s session timeout; then the group can be deleted.
        _ <- deleteGroup.attempt.iterateUntil(_.isRight).timeout(60.seconds)
        created <- bank.awaitFeedback(Set(account))
        iban = bank.accounts(created)(account)._1
        h <- bank.runHandler("d", log)
        _ <- bank.send(List(transfer(deposit, "x", 300, "cash", iban, deposit)))
        checked <- consistent(bank, Set(account, deposit), logs(log)).guarantee(h.stop.void)
        amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '$iban'")(_.getLong(1))
      } yield {
        assertEquals(code, 137)
        assert(os.read(log).contains("published by Kafka, committed"), logs(log))
        assertEquals(checked(deposit)._1, "MoneyTransferConfirmed")
        assertEquals(amount, List(300L))
      }
    }
  }

  test("a new account's first deposit reaches another handler while the creating batch's COMMIT PREPARED is pending: it waits and succeeds") {
    BankFixture.using("fresh") { bank =>
      val (logA, logB) = (os.temp(prefix = "fresh-a", suffix = ".log"), os.temp(prefix = "fresh-b", suffix = ".log"))
      val other = s"${bank.commands}-2"
      val (account, deposit) = (id(), id())
      val held = BankFixture.hold("after-kafka-commit")
      for {
        _ <- secondCommandsTopic(bank, other)
        a <- bank.runHandler("a", logA, env = held.env)
        // Another handler of the same bank (same database and outputs), reading another commands topic.
        b <- bank.runHandler("b", logB, args = List("--topic", other, "--group", s"${bank.group}-2"))
        _ <- BankFixture.awaitReady(a, logA) >> BankFixture.awaitReady(b, logB)
        answered <- (for {
          _ <- bank.send(List(creation(account)))
          created <- bank.awaitFeedback(Set(account))
          iban = bank.accounts(created)(account)._1
          _ <- bank.send(List(transfer(deposit, "x", 900, "cash", iban, deposit)), to = Some(other))
          // B's deposit waits on the account's row that A's prepared batch wrote; only then is A let go.
          _ <- bank.awaitLockWaiter()
          pending <- bank.query(preparedSql)(_.getLong(1))
          _ <- held.release
          checked <- consistent(bank, Set(account, deposit), logs(logA, logB))
        } yield (iban, pending, checked)).guarantee(held.release >> a.stop.void >> b.stop.void)
        (iban, pending, checked) = answered
        amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '$iban'")(_.getLong(1))
      } yield {
        assertEquals(pending, List(1L), "B waited while the creating batch was still prepared")
        assertEquals(checked(deposit)._1, "MoneyTransferConfirmed", logs(logA, logB))
        assertEquals(amount, List(900L))
      }
    }
  }

  test(
    "two batches draw one account number, the first still prepared when the second writes: the second is redone with a new " +
      "number, no number is held twice") {
    BankFixture.using("collide") { bank =>
      val log = os.temp(prefix = "collide", suffix = ".log")
      val (first, second) = (id(), id())
      val drawn = bankops.services.bank.BankRules.iban(424242424L)
      // One command a batch, both creations drawing `drawn` first; the first batch's COMMIT PREPARED held until the
      // second batch's insert of the same number waits for it (under the 5 s lock timeout); then it finds it taken.
      val held = BankFixture.hold("before-commit-prepared")
      val env = Map("BANKOPS_HANDLER_DRAWS" -> "424242424,424242424") ++ held.env
      for {
        h <- bank.runHandler("x", log, env = env, args = List("--max-batch", "1"))
        _ <- BankFixture.awaitReady(h, log)
        checked <-
          // The lock waiter is asked for from before the send, connected: it is released well within the lock timeout.
          (bank.awaitLockWaiter().background.use(waiter => bank.send(List(creation(first), creation(second))) >> waiter.flatMap(_.embedNever)) >>
            held.release >>
            consistent(bank, Set(first, second), logs(log))).guarantee(held.release >> h.stop.void)
        perIban <- bank.query("SELECT iban, count(*) FROM balance GROUP BY iban HAVING count(*) > 1")(_.getString(1))
        created <- bank.feedbackRecords.map(bank.accounts)
      } yield {
        val text = os.read(log)
        assert(text.contains("pausing before-commit-prepared"), logs(log))
        assert(text.contains(s"account number $drawn, drawn for a new account, was created meanwhile by another batch"), logs(log))
        assertEquals(checked(first)._1, "AccountCreationConfirmed")
        assertEquals(checked(second)._1, "AccountCreationConfirmed")
        assertEquals(perIban, Nil)
        assertEquals(created.values.map(_._1).toSet.size, 2, created.toString)
        assert(created.values.map(_._1).toSet.contains(drawn), created.toString)
      }
    }
  }

  test("a prepared transaction of another group in the database: reported, never waited for; transfers naming unknown accounts are answered") {
    BankFixture.using("foreign") { bank =>
      val log = os.temp(prefix = "foreign", suffix = ".log")
      // Unique: prepared transactions' ids are the whole server's, and suites run side by side.
      val gid = s"${LedgerDb.GidRoot}000000000000:0@1:${id()}"
      val (between, deposit) = (id(), id())
      val (a, b) = (bankops.services.bank.BankRules.iban(333333333L), bankops.services.bank.BankRules.iban(444444444L))
      val prepareForeign =
        BankFixture.withDb(bank.dbUrl)(BankFixture.prepare(_, gid)(s"INSERT INTO cmt (uuid, reason) VALUES ('${id()}', 'another deployment')"))
      val settleForeign = BankFixture.withDb(bank.dbUrl)(_.createStatement().execute(s"ROLLBACK PREPARED '$gid'")).void
      (for {
        _ <- prepareForeign
        status <- SandboxFixture.cli("sandbox", "status", "-o", "json")
        h <- bank.runHandler("f", log)
        // Ready first: the answers' time is then the batch's alone (a handler waiting for the foreign one never answers).
        answered = BankFixture.awaitReady(h, log) >>
          bank.send(List(transfer(between, "x", 100, a, b, between), transfer(deposit, "x", 100, "cash", a, deposit))) >>
          bank.awaitFeedback(Set(between, deposit), 30.seconds)
        feedback <- answered.guarantee(h.stop.void)
        _ <- settleForeign
        checked <- consistent(bank, Set(between, deposit), logs(log))
      } yield {
        val text = os.read(log)
        assert(text.contains(s"prepared transaction $gid"), logs(log))
        assert(status.outLines.exists(l => l.contains("\"postgres\"") && l.contains("prepared transaction(s)")), status.out)
        assert(!text.contains("batch failed"), logs(log))
        assertEquals(feedback.size, 2, feedback.toString)
        assertEquals(checked(between), ("MoneyTransferFailed", checked(between)._2))
        assertEquals(str(checked(deposit)._2, "reason"), bankops.services.bank.FailureReasons.BothUnknown)
      }).guarantee(settleForeign.attempt.void)
    }
  }

  test(
    "a prepared batch whose marker offset holds another record, or none: an error naming it, never a verdict; the bank goes on") {
    BankFixture.using("identity") { bank =>
      val log = os.temp(prefix = "identity", suffix = ".log")
      val (account, deposit) = (id(), id())
      val prefix = s"${LedgerDb.GidRoot}${HandlerLoop.hash(s"${bank.group}\u0000${bank.commands}\u0000${bank.feedback}")}:"
      val (other, none) = (id(), id())
      // Batches that wrote a cmt row each and name, as their marker, a record of another batch, and an offset holding no
      // record (the commit marker after it): the old verdict committed the first and rolled back the second.
      def prepare(row: String, gid: String) =
        BankFixture.withDb(bank.dbUrl)(BankFixture.prepare(_, gid)(s"INSERT INTO cmt (uuid, reason) VALUES ('$row', 'not this batch')"))
      (for {
        first <- bank.runHandler("i", log)
        _ <- bank.send(List(creation(account)))
        created <- bank.awaitFeedback(Set(account))
        iban = bank.accounts(created)(account)._1
        _ <- first.stop
        records <- bank.read(bank.feedback)
        marker = records.head.hcursor
        (partition, offset) = (marker.get[Int]("partition").toOption.get, marker.get[Long]("offset").toOption.get)
        (anotherGid, noneGid) = (s"$prefix$partition@$offset:0123456789abcdef", s"$prefix$partition@${offset + 1}:fedcba9876543210")
        _ <- prepare(other, anotherGid) >> prepare(none, noneGid)
        h <- bank.runHandler("i", log)
        _ <- bank.send(List(transfer(deposit, "x", 500, "cash", iban, deposit)))
        feedback <- bank.awaitFeedback(Set(deposit)).guarantee(h.stop.void)
        left <- bank.query("SELECT gid FROM pg_prepared_xacts WHERE database = current_database() ORDER BY gid")(_.getString(1))
        rows <- bank.query(s"SELECT count(*) FROM cmt WHERE uuid IN ('$other', '$none')")(_.getLong(1))
      } yield {
        val text = os.read(log)
        assertEquals(left.toSet, Set(anotherGid, noneGid), logs(log))
        assertEquals(rows, List(0L), "neither was committed")
        assert(text.contains(s"$anotherGid cannot be settled") && text.contains("holds another record than this batch's marker"), logs(log))
        assert(text.contains(s"$noneGid cannot be settled") && text.contains("holds no record"), logs(log))
        assertEquals(feedback.filter(_._1 == deposit).map(_._2), List("MoneyTransferConfirmed"))
      }).guarantee(bank.rollbackPrepared)
    }
  }

  test(
    "one id as an account creation and as a transfer, reaching two handlers while the creation's batch is still prepared: " +
      "one outcome for the id, nothing applied twice") {
    BankFixture.using("oneid") { bank =>
      val (logA, logB) = (os.temp(prefix = "oneid-a", suffix = ".log"), os.temp(prefix = "oneid-b", suffix = ".log"))
      val other = s"${bank.commands}-2"
      val shared = id()
      val seeded = bankops.services.bank.BankRules.SeededIban
      // A's batch creating `shared` stays prepared after Kafka committed it, until B's batch with the same id has failed.
      val held = BankFixture.hold("before-commit-prepared")
      for {
        _ <- secondCommandsTopic(bank, other)
        a <- bank.runHandler("a", logA, env = held.env)
        b <- bank.runHandler("b", logB, args = List("--topic", other, "--group", s"${bank.group}-2"))
        _ <- BankFixture.awaitReady(a, logA) >> BankFixture.awaitReady(b, logB)
        _ <- bank.send(List(creation(shared)))
        _ <- BankFixture.awaitLog(logA, "pausing before-commit-prepared")
        // The same id as a deposit, to the other handler while the creation is prepared: its cmt row would be a second outcome.
        _ <- bank.send(List(transfer(shared, "x", 900, "cash", seeded, "same id")), to = Some(other))
        _ <- BankFixture.awaitLog(logB, "batch failed").guarantee(held.release)
        // Answered by both: A's creation, then B's deposit once A's batch committed.
        _ <- bank.readUntil(bank.feedback, 1.second)(bank.feedbackRecords)(_.count(_._1 == shared) >= 2).timeout(90.seconds)
        checked <- consistent(bank, Set(shared), logs(logA, logB))
          .guarantee(a.stop.void >> b.stop.void)
        cmt <- bank.query(s"SELECT count(*) FROM cmt WHERE uuid = '$shared'")(_.getLong(1))
        amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '$seeded'")(_.getLong(1))
        prepared <- IO.blocking(os.read(logA))
      } yield {
        assertEquals(checked(shared)._1, "AccountCreationConfirmed", logs(logA, logB))
        assertEquals(cmt, List(0L), "the deposit under the creation's id was not applied")
        assertEquals(amount, List(bankops.services.bank.BankRules.SeededAmount))
        assert(prepared.contains("pausing before-commit-prepared"), logs(logA))
      }
    }
  }

  test(
    "a batch whose database work would outlive its Kafka transaction (a statement held 12 s, the timeout 10 s): cut off, undone " +
      "and retried; the handler is not fenced and every command counts once") {
    BankFixture.using("slow") { bank =>
      val log = os.temp(prefix = "slow", suffix = ".log")
      // The first write of a transfer outcome after this sleeps 12 s: a database that stalls once.
      val stallOnce = BankFixture.withDb(bank.dbUrl) { c =>
        c.createStatement().execute("CREATE SEQUENCE stall_once")
        c.createStatement().execute(
          "CREATE FUNCTION stall_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF nextval('stall_once') = 1 THEN " +
            "PERFORM pg_sleep(12); END IF; RETURN NULL; END $$")
        c.createStatement().execute("CREATE TRIGGER stall_once AFTER INSERT ON cmt FOR EACH STATEMENT EXECUTE FUNCTION stall_once()")
      }.void
      scenario(bank, bank.runHandler("s", log), log, more = stallOnce).flatMap { case (h, _) =>
        for {
          stalled <- bank.query("SELECT last_value FROM stall_once")(_.getLong(1))
          alive <- h.isAlive
          _ <- h.stop
        } yield {
          val text = os.read(log)
          assert(stalled.head >= 2L, s"the stall was reached and the batch retried: $stalled")
          assert(alive, logs(log))
          assert(text.contains(s"took over ${LedgerDb.BatchBudget.toSeconds} s"), logs(log))
          assert(!text.contains("took this one's place"), logs(log))
        }
      }
    }
  }

  test("the schema registry unreachable under load for three failed tries: each batch retried with a line, the handler stays up, " +
    "every command once") {
    BankFixture.using("regdown") { bank =>
      val log = os.temp(prefix = "regdown", suffix = ".log")
      val (account, late) = (id(), id())
      val deposits = List.fill(50)(id())
      val transferSchema = bankops.services.bank.ConfirmMoneyTransfer.codec.schema.toOption.get.toString
      SandboxFixture.settings.flatMap { s =>
        val url = new java.net.URI(s.registry.url.value)
        TcpRelay.resource(url.getHost, url.getPort).use { relay =>
          for {
            h <- bank.runHandler("r", log, args = List("--registry-url", s"http://127.0.0.1:${relay.port}${url.getPath}"))
            _ <- bank.send(List(creation(account)))
            iban <- bank.awaitFeedback(Set(account)).map(bank.accounts(_)(account)._1)
            registry <- SandboxFixture.registry
            _ <- IO(relay.down())
            // A deposit written under a schema id the handler has not seen: decoding it needs the registry.
            lateId <- registry.register(s"${bank.commands}-nl.openweb.data.ConfirmMoneyTransfer",
              transferSchema.replace("\"name\":\"ConfirmMoneyTransfer\"", "\"name\":\"ConfirmMoneyTransfer\",\"doc\":\"" + late + "\""),
              normalize = false)
            value = bankops.services.avro.WireFormat.Writer[bankops.services.bank.ConfirmMoneyTransfer](lateId)
              .apply(bankops.services.bank.ConfirmMoneyTransfer(java.util.UUID.fromString(late), "x", 100, "cash", iban, late)).toOption.get
            _ <- bank.sendValues(List(value))
            _ <- bank.send(deposits.map(d => transfer(d, "x", 10, "cash", iban, d)), rate = Some(25))
            _ <- BankFixture.awaitLog(log, "RegistryUnreachable")
            // The outage lasts until the handler has said three failed tries, each with its backoff.
            tries = IO.blocking(os.read.lines(log).count(_.contains("RegistryUnreachable")))
            failures <- (IO.sleep(200.millis) >> tries).iterateUntil(_ >= 3).timeoutTo(90.seconds, tries)
            alive <- h.isAlive
            _ <- IO(relay.restore())
            checked <- consistent(bank, Set(account, late) ++ deposits, logs(log)).guarantee(h.stop.void)
            amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '$iban'")(_.getLong(1))
          } yield {
            assert(alive, logs(log))
            assert(failures >= 3, s"$failures failed tries in 90 s\n${logs(log)}")
            assertEquals(checked(late)._1, "MoneyTransferConfirmed")
            assertEquals(amount, List(100L + 10L * deposits.size))
          }
        }
      }
    }
  }

  test("a command-config that sets what the handler sets itself (transactional.id, group.id): exit 2, one line naming the keys") {
    BankFixture.using("ownkeys") { bank =>
      val log = os.temp(prefix = "ownkeys", suffix = ".log")
      val config = IO.blocking {
        val identity = BankFixture.handlerIdentity
        os.temp(os.read(identity) + "\ntransactional.id=someone-else\ngroup.id=other\n", suffix = ".properties")
      }
      for {
        c <- config
        h <- bank.runHandler("o", log, args = List("--command-config", c.toString))
        code <- h.exited(60.seconds)
      } yield {
        val lines = os.read.lines(log).filterNot(_.startsWith("{"))
        assertEquals(code, 2, logs(log))
        assertEquals(lines.size, 1, logs(log))
        assert(lines.head.contains("set group.id, transactional.id, which the handler sets itself"), lines.head)
      }
    }
  }
}

package bankops.jobs.handler

import cats.effect.IO

import org.apache.kafka.clients.admin.TransactionState

import scala.concurrent.duration._

import bankops.support.{BankFixture, IOSuite, SandboxFixture}
import bankops.support.BankFixture.{creation, id, transfer}
import bankops.support.OnSandbox

/** The handler's own inputs, as a hostile or hurried operator gives them: its name twice, a database without the
  * bank's tables, command ids reused across kinds, SIGTERM in the middle of a wait. Each through the CLI, each with
  * its exit code, its one line, and nothing changed.
  */
class HandlerInputsSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 4.minutes

  private def exit(p: os.SubProcess, within: FiniteDuration): IO[Option[Int]] =
    IO.blocking { p.waitFor(within.toMillis); if (p.isAlive()) None else Some(p.exitCode()) }

  private def lines(log: os.Path) = os.read.lines(log).filterNot(_.startsWith("{")).toList

  test("a second handler with a running one's --instance is refused (exit 2, one line naming it); the running one goes on") {
    BankFixture.using("twice") { bank =>
      val (logA, logB) = (os.temp(prefix = "twice-a", suffix = ".log"), os.temp(prefix = "twice-b", suffix = ".log"))
      val account = id()
      for {
        // B, the one refused, is a process; A runs on in this JVM.
        a <- bank.runHandler("same", logA)
        _ <- BankFixture.awaitReady(a, logA)
        b <- IO.blocking(bank.spawnHandler("same", logB))
        code <- exit(b, 60.seconds)
        _ <- bank.send(List(creation(account)))
        feedback <- bank.awaitFeedback(Set(account)).guarantee(a.stop.void)
      } yield {
        assertEquals(code, Some(2), BankFixture.tail(logB))
        assertEquals(lines(logB).size, 1, BankFixture.tail(logB))
        assert(lines(logB).head.contains(s"another handler is running as --instance same of group ${bank.group}"), BankFixture.tail(logB))
        assertEquals(feedback.map(_._2), List("AccountCreationConfirmed"), BankFixture.tail(logA))
        assert(!os.read(logA).contains("unexpected error"), BankFixture.tail(logA))
      }
    }
  }

  test("a database without the bank's tables: exit 2 at start, one line naming the missing tables, nothing consumed") {
    BankFixture.using("notables") { bank =>
      val log = os.temp(prefix = "notables", suffix = ".log")
      val empty = bank.dbUrl + "_empty"
      val name = empty.split('/').last
      for {
        base <- SandboxFixture.settings.map(_.database.url.value)
        _ <- BankFixture.withDb(base)(_.createStatement().execute(s"CREATE DATABASE $name"))
        _ <- bank.send(List(creation(id())))
        h <- IO.blocking(bank.spawnHandler("n", log, args = List("--db-url", empty)))
        code <- exit(h, 60.seconds)
        groups <- SandboxFixture.cli("groups", "list", "-o", "json")
      } yield {
        assertEquals(code, Some(2), BankFixture.tail(log))
        assertEquals(lines(log).size, 1, BankFixture.tail(log))
        assert(lines(log).head.contains(s"database $name has no table balance, cac, cmt, cid: the handler needs the bank's tables"),
          BankFixture.tail(log))
        assert(!groups.out.contains(bank.group), "no offsets committed: " + groups.out)
      }
    }
  }

  test("a command id is unique across kinds: a transfer reusing an account creation's id, and the reverse, get the first outcome again") {
    BankFixture.using("reuse") { bank =>
      val log = os.temp(prefix = "reuse", suffix = ".log")
      val (account, deposit) = (id(), id())
      for {
        h <- bank.runHandler("r", log)
        _ <- bank.send(List(creation(account)))
        iban <- bank.awaitFeedback(Set(account)).map(bank.accounts(_)(account)._1)
        _ <- bank.send(List(transfer(deposit, "x", 50, "cash", iban, deposit)))
        _ <- bank.awaitFeedback(Set(deposit))
        _ <- bank.send(List(transfer(account, "x", 999, "cash", iban, "reuses a creation's id"), creation(deposit)))
        feedback <- bank.readUntil(bank.feedback, 1.second)(bank.feedbackRecords)(_.size >= 4).timeout(60.seconds)
          .guarantee(h.stop.void)
        amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '$iban'")(_.getLong(1))
        accounts <- bank.query("SELECT count(*) FROM balance")(_.getLong(1))
        changes <- bank.balanceChanges
      } yield {
        val byId = feedback.groupBy(_._1).map { case (i, fs) => i -> fs.map(f => (f._2, f._3)).distinct }
        assertEquals(byId(account).map(_._1), List("AccountCreationConfirmed"))
        assertEquals(byId(deposit).map(_._1), List("MoneyTransferConfirmed"))
        assertEquals(feedback.size, 4)
        assertEquals(amount, List(50L))
        assertEquals(accounts, List(2L), "the seeded account and the one created")
        assertEquals(changes.size, 1)
      }
    }
  }

  test("SIGTERM while the handler waits for another handler's open transaction: it stops at once, not when the transaction ends, exit 0"
      .tag(OnSandbox.Alone)) {
    BankFixture.using("term") { bank =>
      val (logA, logB) = (os.temp(prefix = "term-a", suffix = ".log"), os.temp(prefix = "term-b", suffix = ".log"))
      // A is held after PREPARE, its transaction given 60 s before Kafka aborts it, until the test ends (killed, its
      // batch rolled back, by BankFixture.using): B's wait for Kafka's outcome of it can only end by the SIGTERM.
      val held = BankFixture.hold("after-prepare")
      for {
        _ <- IO.blocking(bank.spawnHandler("a", logA, env = held.env, patient = true))
        _ <- bank.send(List(creation(id())))
        _ <- BankFixture.awaitLog(logA, "pausing after-prepare")
        b <- IO.blocking(bank.spawnHandler("b", logB))
        _ <- BankFixture.awaitLog(logB, "still open on Kafka")
        start <- IO.monotonic
        _ <- IO.blocking(os.proc("kill", "-TERM", b.wrapped.pid().toString).call())
        code <- exit(b, 30.seconds)
        end <- IO.monotonic
      } yield {
        assertEquals(code, Some(0), BankFixture.tail(logB))
        // Stopped in its wait, not after it: it never started consuming.
        assert(os.read(logB).contains("handler: stopped before it started (SIGTERM)"), BankFixture.tail(logB))
        assert(end - start < 10.seconds, s"stopped in ${(end - start).toMillis} ms")
        assert(!os.read(logB).contains("unexpected error"), BankFixture.tail(logB))
      }
    }
  }

  test(
    "one hostile record stops nothing: a zstd-compressed deposit with a 4 MiB description fails with a reason, a 4 MiB value " +
      "that is no command is dead-lettered cut down, and the next deposit is answered") {
    BankFixture.using("huge") { bank =>
      val log = os.temp(prefix = "huge", suffix = ".log")
      val (account, big, after) = (id(), id(), id())
      val fourMiB = 4 * 1024 * 1024
      def line(record: String, key: String, value: io.circe.Json) =
        io.circe.Json.obj("topic" -> io.circe.Json.fromString(bank.commands), "key" -> io.circe.Json.fromString(key),
          "record" -> io.circe.Json.fromString(record), "value" -> value).noSpaces
      def deposit(i: String, iban: String, description: String) = io.circe.parser.parse(transfer(i, "x", 100, "cash", iban, description))
        .toOption.get.hcursor.downField("value").focus.get
      val poison = io.circe.Json.obj("topic" -> io.circe.Json.fromString(bank.commands), "key" -> io.circe.Json.fromString("poison"),
        "rawHex" -> io.circe.Json.fromString("78" * fourMiB)).noSpaces
      for {
        h <- bank.runHandler("h", log)
        _ <- bank.send(List(creation(account)))
        iban <- bank.awaitFeedback(Set(account)).map(bank.accounts(_)(account)._1)
        _ <- bankops.support.PythonClients.produce(List(line("ConfirmMoneyTransfer", big, deposit(big, iban, "d" * fourMiB)), poison), Some("zstd"))
        _ <- bank.send(List(transfer(after, "x", 250, "cash", iban, after)))
        feedback <- bank.awaitFeedback(Set(big, after), 60.seconds).guarantee(h.stop.void)
        dead <- bank.read(bank.deadLetters)
        amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '$iban'")(_.getLong(1))
        prepared <- bank.query("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()")(_.getLong(1))
        validated <- bank.validate
      } yield {
        val byId = feedback.groupBy(_._1).map { case (i, fs) => i -> fs.map(f => (f._2, f._3)).distinct }
        assertEquals(byId(big).map(_._1), List("MoneyTransferFailed"), BankFixture.tail(log))
        assertEquals(byId(big).head._2.hcursor.get[String]("reason"), Right(bankops.services.bank.FailureReasons.TextTooLong))
        assertEquals(byId(after).map(_._1), List("MoneyTransferConfirmed"), BankFixture.tail(log))
        assertEquals(amount, List(250L))
        assertEquals(dead.size, 1, dead.toString.take(2000))
        val headers = dead.head.hcursor.downField("headers").focus.flatMap(_.asArray).getOrElse(Vector.empty)
          .flatMap(j => j.hcursor.get[String]("key").toOption.map(_ -> j.hcursor.get[String]("value").toOption.getOrElse("")))
          .toMap
        assert(headers.get("bankops.dlq.truncated").exists(_.startsWith(s"value $fourMiB bytes")), headers.toString)
        assert(headers.contains("bankops.dlq.offset"), headers.toString)
        assert(!os.read(log).contains("batch failed"), BankFixture.tail(log))
        assertEquals(prepared, List(0L))
        assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      }
    }
  }

  test("SIGTERM while a batch is prepared and not yet committed: the batch is finished (Kafka and database), exit 0, nothing left prepared") {
    BankFixture.using("termbatch") { bank =>
      val log = os.temp(prefix = "termbatch", suffix = ".log")
      val account = id()
      val held = BankFixture.hold("after-prepare")
      for {
        h <- IO.blocking(bank.spawnHandler("t", log, env = held.env, patient = true))
        _ <- BankFixture.awaitReady(h, log)
        _ <- bank.send(List(creation(account)))
        _ <- BankFixture.awaitLog(log, "pausing after-prepare")
        prepared <- bank.query("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()")(_.getLong(1))
        _ <- IO.blocking(os.proc("kill", "-TERM", h.wrapped.pid().toString).call())
        // The batch goes on only once the handler has heard the SIGTERM: the signal lands while the batch is prepared.
        _ <- BankFixture.awaitLog(log, "handler: SIGTERM: stopping").guarantee(held.release)
        code <- exit(h, 30.seconds)
        left <- bank.query("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()")(_.getLong(1))
        feedback <- bank.awaitFeedback(Set(account), 30.seconds)
        rows <- bank.query("SELECT count(*) FROM cac")(_.getLong(1))
        validated <- bank.validate
      } yield {
        assertEquals(prepared, List(1L), "SIGTERM came while the batch was prepared")
        assertEquals(code, Some(0), BankFixture.tail(log))
        assertEquals(left, List(0L), BankFixture.tail(log))
        assertEquals(feedback.map(_._2), List("AccountCreationConfirmed"))
        assertEquals(rows, List(1L))
        assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      }
    }
  }

  test("a batch held after PREPARE past its Kafka transaction's timeout: the coordinator aborts it, the handler takes a new " +
    "producer and applies the batch once, not stopping as fenced") {
    BankFixture.using("overrun") { bank =>
      val log = os.temp(prefix = "overrun", suffix = ".log")
      val account = id()
      val held = BankFixture.hold("after-prepare")
      val txnId = s"${bank.group}-o"
      // The coordinator's own word that it aborted the held transaction (it checks every 10 s for ones past their 10 s).
      val aborted = SandboxFixture.settings.flatMap(s =>
        bankops.services.kafka.KafkaClients.javaAdmin(s.kafka, 30.seconds).use { admin =>
          IO.blocking(admin.describeTransactions(java.util.List.of(txnId)).all().get().get(txnId).state)
        }).map(state => Set(TransactionState.COMPLETE_ABORT, TransactionState.EMPTY).contains(state))
      for {
        h <- bank.runHandler("o", log, env = held.env)
        _ <- BankFixture.awaitReady(h, log)
        _ <- bank.send(List(creation(account)))
        _ <- BankFixture.awaitLog(log, "pausing after-prepare")
        _ <- (IO.sleep(1.second) >> aborted).iterateUntil(identity).timeoutTo(90.seconds,
          IO.raiseError(new AssertionError(s"the coordinator did not abort $txnId within 90 s:\n${BankFixture.tail(log)}"))).guarantee(held.release)
        feedback <- bank.awaitFeedback(Set(account), 90.seconds)
        alive <- h.isAlive
        _ <- h.stop
        rows <- bank.query("SELECT count(*) FROM cac")(_.getLong(1))
        left <- bank.query("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()")(_.getLong(1))
        validated <- bank.validate
      } yield {
        assert(alive, BankFixture.tail(log))
        assert(os.read(log).contains("was aborted: a new producer takes over"), BankFixture.tail(log))
        assert(!os.read(log).contains("took this one's place"), BankFixture.tail(log))
        assertEquals(feedback.filter(_._1 == account).map(_._2), List("AccountCreationConfirmed"), BankFixture.tail(log))
        assertEquals(rows, List(1L))
        assertEquals(left, List(0L), BankFixture.tail(log))
        assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      }
    }
  }
}

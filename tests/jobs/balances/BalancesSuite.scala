package bankops.jobs.balances

import cats.effect.IO
import io.circe.parser.parse

import scala.concurrent.duration._

import bankops.services.bank.{BalanceChanged, BankRules}
import bankops.support.{BalanceEvents, BankFixture, CliProcess, IOSuite, SandboxFixture, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

class BalancesSuite extends IOSuite with OnSandbox {
  import BalancesSuite.Bank
  override val munitIOTimeout: Duration = 5.minutes

  private def setup(): IO[Bank] = {
    val topic = TopologyFixture.unique("balance_changed")
    val file = TopologyFiles.write(TopologyFiles.topology((topic, 3, Map.empty, "BalanceChanged", "iban")))
    for {
      applied <- SandboxFixture.cli("apply", "--topology", file.toString)
      _ <- IO(assertEquals(applied.code, 0, applied.err))
      db <- BankFixture.database(topic)
      bank = Bank(topic, "balance", db)
      _ <- sql(bank, "CREATE TABLE balance (iban text NOT NULL, amount bigint NOT NULL, lmt bigint NOT NULL DEFAULT -50000)")
    } yield bank
  }

  private def sql(bank: Bank, statement: String): IO[Unit] = BankFixture.withDb(bank.db)(_.createStatement().execute(statement)).void

  private def produce(topic: String, events: List[BalanceChanged]): IO[Unit] = BalanceEvents.produce(topic, events)

  /** A chain of deposits for an account, and its final balance. */
  private def chain(iban: String, amounts: List[Long]): (List[BalanceChanged], Long) =
    amounts.foldLeft((List.empty[BalanceChanged], 0L)) { case ((evs, bal), a) =>
      (evs :+ BalanceChanged(iban, bal + a, a, "cash", "deposit"), bal + a)
    }

  private def args(bank: Bank): List[String] = List("balances", "validate", "--topic", bank.topic, "--table", bank.table, "--db-url", bank.db)

  private def validate(bank: Bank, extra: String*): IO[TestShell.Result] = SandboxFixture.cli(args(bank) ++ extra: _*)

  private val accounts = (1 to 5).map(i => BankRules.iban(100000L * i + 4242)).toList

  test("agreeing balances exit 0; then one changed amount, one dropped account and one out-of-chain event give exactly those three findings") {
    val chains = accounts.zipWithIndex.map { case (iban, i) => iban -> chain(iban, List(1000L * (i + 1), 250, -100)) }
    for {
      bank <- setup()
      _ <- produce(bank.topic, chains.flatMap(_._2._1))
      _ <- sql(bank, "INSERT INTO balance (iban, amount) VALUES " + chains.map { case (iban, (_, bal)) => s"('$iban', $bal)" }.mkString(", "))
      ok <- validate(bank, "-o", "table")
      _ <- sql(bank, s"UPDATE balance SET amount = amount + 1 WHERE iban = '${accounts(0)}'")
      _ <- sql(bank, s"DELETE FROM balance WHERE iban = '${accounts(1)}'")
      last2 = chains(2)._2._2
      _ <- produce(bank.topic, List(BalanceChanged(accounts(2), last2, 100, "cash", "out of chain")))
      summaryFile = os.temp()
      bad <- SandboxFixture.connection >> TestShell.run(args(bank) ++ List("-o", "json"),
        SandboxFixture.env ++ Map("GITHUB_STEP_SUMMARY" -> summaryFile.toString), bankops.support.Repo.root)
    } yield {
      assertEquals(ok.code, 0, ok.out + ok.err)
      assert(ok.out.contains("5 accounts checked") && ok.out.contains("15 events") && ok.out.contains("everything agrees"), ok.out)
      assertEquals(bad.code, 1, bad.err)
      val lines = bad.outLines.map(l => parse(l).toOption.get.hcursor)
      val findings =
        lines.filter(_.downField("finding").succeeded).map(c => (c.get[String]("finding").toOption.get, c.get[String]("iban").toOption.get))
      assertEquals(findings.toSet, Set("amount-mismatch" -> accounts(0), "missing-in-db" -> accounts(1), "chain-break" -> accounts(2)))
      assertEquals(findings.size, 3)
      val mismatch = lines.find(_.get[String]("finding").contains("amount-mismatch")).get
      assertEquals(mismatch.get[Long]("db").toOption.get - mismatch.get[Long]("kafka").toOption.get, 1L)
      val break = lines.find(_.get[String]("finding").contains("chain-break")).get
      assertEquals(break.get[Long]("expected"), Right(last2 + 100))
      assertEquals(lines.last.downField("summary").get[Int]("findings"), Right(3))
      assert(os.read(summaryFile).contains("### bankops balances validate: 3 findings in 5 accounts :x:"), os.read(summaryFile))
      assertEquals(bankops.support.MarkdownCheck.problems(os.read(summaryFile)), Nil)
    }
  }

  test("--settle: a transfer the handler applied before its event arrived is not drift") {
    val (events, bal) = chain(accounts(3), List(5000L))
    for {
      bank <- setup()
      _ <- produce(bank.topic, events)
      _ <- sql(bank, s"INSERT INTO balance (iban, amount) VALUES ('${accounts(3)}', ${bal + 700})")
      // The late event is produced once the first check has found the difference (its line says so), within the settle
      // time: its schema id is looked up and its producer made before, so only the send is left then.
      settled <- BalanceEvents.producer(bank.topic).use(send =>
        for {
          p <- CliProcess.start(args(bank) ++ List("--settle", "10s", "-o", "json"): _*)
          _ <- p.await(60.seconds, "the first check's difference")(IO.blocking(os.read(p.err).contains("checking them again")))
          _ <- send(List(BalanceChanged(accounts(3), bal + 700, 700, accounts(4), "late")))
          code <- p.exited(60.seconds)
        } yield TestShell.Result(code, os.read(p.out), os.read(p.err)))
      without <- validate(bank, "-o", "json")
      _ <- sql(bank, "UPDATE balance SET amount = amount + 1")
      drift <- validate(bank, "--settle", "1s", "-o", "json")
    } yield {
      assertEquals(settled.code, 0, settled.out + settled.err)
      assert(settled.err.contains("1 accounts differ; checking them again"), settled.err)
      assertEquals(without.code, 0, without.out)
      assertEquals(drift.code, 1, drift.out)
    }
  }

  test("faults: a wrong database password is exit 3 naming the database, not the password; an unknown table is exit 2") {
    for {
      bank <- setup()
      wrong <- SandboxFixture.connection >> TestShell.run(args(bank), SandboxFixture.env ++ Map("DB_PASSWORD" -> "not-the-Secret-42"),
        bankops.support.Repo.root)
      noTable <- validate(bank.copy(table = "no_such_balance_table"))
    } yield {
      assertEquals(wrong.code, 3, wrong.err)
      val db = bank.db.split('/').last
      assert(wrong.err.contains(db) && wrong.err.contains("password authentication failed"), wrong.err)
      assert(!wrong.err.contains("not-the-Secret-42") && !wrong.out.contains("not-the-Secret-42"))
      assertEquals(noTable.code, 2, noTable.err)
      assert(noTable.err.contains("table no_such_balance_table does not exist"), noTable.err)
    }
  }

  test("an account number held by two rows of the table (no unique index) is a duplicate-iban finding, exit 1") {
    val (events, last) = chain(accounts(3), List(700L))
    for {
      bank <- setup()
      _ <- produce(bank.topic, events)
      _ <- sql(bank, s"INSERT INTO balance (iban, amount) VALUES ('${accounts(3)}', $last), ('${accounts(3)}', 0)")
      r <- validate(bank, "-o", "json")
    } yield {
      assertEquals(r.code, 1, r.err)
      val findings = r.outLines.flatMap(l => parse(l).toOption).filter(_.hcursor.downField("finding").succeeded)
      assertEquals(findings.map(_.hcursor.get[String]("finding").toOption.get), List("duplicate-iban"), r.out)
      assertEquals(findings.head.hcursor.get[Int]("rows"), Right(2))
    }
  }
}

object BalancesSuite {

  /** A topic of BalanceChanged records, and a database of the test's own holding its balance table. */
  private final case class Bank(topic: String, table: String, db: String)
}

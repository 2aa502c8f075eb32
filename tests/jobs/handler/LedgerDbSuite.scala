package bankops.jobs.handler

import cats.effect.IO

import scala.concurrent.duration._

import bankops.services.bank.BankRules
import bankops.support.{BankFixture, SandboxFixture}

/** The handler's connection on the sandbox's PostgreSQL: what a batch locks stays locked until its PREPARE, also for
  * the batch after a prepared one whose COMMIT PREPARED ran on another connection (the committer's).
  */
class LedgerDbSuite extends munit.CatsEffectSuite {
  override val munitIOTimeout: Duration = 3.minutes

  test("the batch after a prepared one reads in a transaction: its accounts stay locked until its own PREPARE") {
    BankFixture.create("ledgerdb").flatMap { bank =>
      val gid = s"${LedgerDb.GidRoot}test:${BankFixture.id()}"
      SandboxFixture.settings.flatMap { s =>
        def connect() = java.sql.DriverManager.getConnection(bank.dbUrl, s.database.user.value, s.database.password.map(_.value).orNull)
        IO.blocking {
          val (handler, other) = (connect(), connect())
          try {
            val ledger = new LedgerDb(handler)
            val committer = new LedgerDb(other)
            // A batch: the seeded account read (locked) and prepared; committed on the other connection, as the committer does.
            ledger.accounts(Set(BankRules.SeededIban))
            ledger.prepare(gid)
            PreparedBatches.finish(committer, gid, commit = true)
            // The next batch reads the same account: until its PREPARE or rollback, no one else may lock it.
            ledger.accounts(Set(BankRules.SeededIban))
            val probe = other.createStatement()
            other.setAutoCommit(true)
            val locked =
              try { probe.execute(s"SELECT 1 FROM balance WHERE iban = '${BankRules.SeededIban}' FOR UPDATE NOWAIT"); None }
              catch { case e: java.sql.SQLException => Some(e.getSQLState) }
            ledger.rollback()
            assertEquals(locked, Some("55P03"), "the second batch's read must hold the account's lock (55P03: lock not available)")
          } finally { handler.close(); other.close() }
        }
      }
    }
  }
}

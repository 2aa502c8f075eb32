package bankops.jobs.handler

import cats.effect.IO

import scala.concurrent.duration._

import bankops.services.bank.{BankRules, BankTables}
import bankops.support.{BankFixture, IOSuite, SandboxFixture}
import bankops.support.OnSandbox

/** The handler's connection on the sandbox's PostgreSQL: what a batch locks stays locked until its PREPARE, also for
  * the batch after a prepared one whose COMMIT PREPARED ran on another connection (the committer's).
  */
class LedgerDbSuite extends IOSuite with OnSandbox {
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

  private def connect(bank: BankFixture): IO[(() => java.sql.Connection)] = SandboxFixture.settings.map { s => () =>
    java.sql.DriverManager.getConnection(bank.dbUrl, s.database.user.value, s.database.password.map(_.value).orNull)
  }

  private def sqlState(run: => Any): Option[String] =
    try { run; None }
    catch { case e: java.sql.SQLException => Some(e.getSQLState) }

  test("an account number belongs to one row: a second row with a taken number is refused (unique violation)") {
    BankFixture.create("uniqueiban").flatMap { bank =>
      BankFixture.withDb(bank.dbUrl) { c =>
        val state = sqlState(c.createStatement().execute("INSERT INTO balance (iban, token, type) SELECT iban, 'x', 'AUTO' FROM balance LIMIT 1"))
        assertEquals(state, Some("23505"))
        assertEquals(new LedgerDb(c).uniqueIbans, Right(()))
      }
    }
  }

  test("a database that already holds a number twice: installing names it, builds no index and changes no row; the handler's check says so") {
    BankFixture.create("dupiban").flatMap { bank =>
      val twice = BankRules.iban(123456789L)
      BankFixture.withDb(bank.dbUrl) { c =>
        // A database from before the unique index: its plain index, and a number given to two accounts.
        c.createStatement().execute("DROP INDEX balance_iban_key")
        c.createStatement().execute("CREATE INDEX balance_iban ON balance (iban)")
        c.createStatement().execute(s"INSERT INTO balance (iban, token, type) VALUES ('$twice', 'a', 'AUTO'), ('$twice', 'b', 'AUTO')")
        val found = BankTables.install(c)
        val rows = c.createStatement().executeQuery(s"SELECT count(*) FROM balance WHERE iban = '$twice'")
        rows.next()
        assertEquals(found, List(twice -> 2L))
        assertEquals(rows.getLong(1), 2L, "nothing changed")
        assertEquals(new LedgerDb(c).uniqueIbans, Left(List(twice -> 2L)))
        assert(BankTables.duplicatesLine(found).contains(s"$twice (2 rows)"))
      }
    }
  }

  test(
    "a missing account number is waited for exactly when a transaction is creating it: a prepared creation of another group " +
      "holds a batch naming that number, never one naming others") {
    BankFixture.create("probe").flatMap { bank =>
      val (creating, unknown) = (BankRules.iban(111111111L), BankRules.iban(222222222L))
      // Another deployment's prepared batch (another group's gid), which created `creating`: nobody here settles it.
      // Unique: prepared transactions' ids are the whole server's, and suites run side by side.
      val gid = s"${LedgerDb.GidRoot}000000000000:0@1:${BankFixture.id()}"
      connect(bank).flatMap { connect =>
        IO.blocking {
          val (other, handler) = (connect(), connect())
          try {
            BankFixture.prepare(other, gid)(s"INSERT INTO balance (iban, token, type) VALUES ('$creating', 't', 'AUTO')")
            val ledger = new LedgerDb(handler)
            val t0 = System.nanoTime()
            val unrelated = ledger.known(Set.empty, Set(unknown))
            val unrelatedMs = (System.nanoTime() - t0) / 1000000
            ledger.rollback()
            val held = scala.util.Try(ledger.known(Set.empty, Set(creating, unknown)))
            ledger.rollback()
            other.createStatement().execute(s"ROLLBACK PREPARED '$gid'")
            val after = ledger.known(Set.empty, Set(creating))
            ledger.rollback()
            assertEquals(unrelated.accounts, Map.empty[String, Account])
            assert(unrelatedMs < LedgerDb.PreparedWait.toMillis, s"a number nobody creates was answered in $unrelatedMs ms, not after a wait")
            assertEquals(held.failed.toOption.collect { case AccountsHeld(h) => h }, Some(Map(creating -> None)),
              s"the batch naming $creating must wait, then fail naming that number alone: $held")
            assertEquals(after.accounts, Map.empty[String, Account], "rolled back: the number is unknown, and the probe left no row")
            val rows = handler.createStatement().executeQuery("SELECT count(*) FROM balance")
            rows.next()
            assertEquals(rows.getLong(1), 1L, "the seeded account only")
          } finally { handler.close(); other.close() }
        }
      }
    }
  }

  test("probing for unknown numbers draws nothing from balance_id's identity: the next account gets the id it would have") {
    BankFixture.create("probeids").flatMap { bank =>
      connect(bank).flatMap { connect =>
        IO.blocking {
          val c = connect()
          try {
            def next(): Long = {
              val rs = c.createStatement().executeQuery("SELECT last_value, is_called FROM balance_balance_id_seq")
              rs.next()
              rs.getLong(1) + (if (rs.getBoolean(2)) 1 else 0)
            }
            val before = next()
            val ledger = new LedgerDb(c)
            (1 to 20).foreach { i =>
              ledger.known(Set.empty, Set(BankRules.iban(300000000L + i), s"outside-$i", "cash"))
              ledger.rollback()
            }
            assertEquals(next(), before, "twenty probes of three unknown numbers each drew ids")
          } finally c.close()
        }
      }
    }
  }

  test("installing the tables on a live bank waits for no prepared batch: `sandbox up` never queues the handlers' writes") {
    BankFixture.create("liveinstall").flatMap { bank =>
      val gid = s"${LedgerDb.GidRoot}test:${BankFixture.id()}"
      connect(bank).flatMap { connect =>
        IO.blocking {
          val (other, c) = (connect(), connect())
          try {
            BankFixture.prepare(other, gid)(s"UPDATE balance SET amount = amount WHERE iban = '${BankRules.SeededIban}'")
            // A lock wait fails at once instead of queueing: 55P03 here is the wait `sandbox up` made.
            c.createStatement().execute("SET lock_timeout = '1s'")
            val installed = scala.util.Try(BankTables.install(c))
            other.createStatement().execute(s"ROLLBACK PREPARED '$gid'")
            assertEquals(installed.map(_ => ()).toEither.left.map(_.getMessage), Right(()))
          } finally { c.close(); other.close() }
        }
      }
    }
  }

  test("an account held past the lock wait by a prepared transaction nobody settles: the batch fails naming it and the gid, " +
    "and it is found held, without waiting, until that transaction ends") {
    BankFixture.create("heldrow").flatMap { bank =>
      val (held, free) = (BankRules.iban(411111111L), BankRules.iban(422222222L))
      val gid = s"another-deployment:${BankFixture.id()}"
      connect(bank).flatMap { connect =>
        IO.blocking {
          val (other, c) = (connect(), connect())
          try {
            other.createStatement().execute(s"INSERT INTO balance (iban, token, type) VALUES ('$held', 't', 'AUTO'), ('$free', 't', 'AUTO')")
            BankFixture.prepare(other, gid)(s"UPDATE balance SET amount = 1 WHERE iban = '$held'")
            c.createStatement().execute("SET lock_timeout = '1s'")
            val ledger = new LedgerDb(c)
            val failed = scala.util.Try(ledger.known(Set.empty, Set(held, free)))
            ledger.rollback()
            val whileHeld = ledger.stillHeld(Set(held, free))
            other.createStatement().execute(s"ROLLBACK PREPARED '$gid'")
            val after = ledger.stillHeld(Set(held, free))
            assertEquals(failed.failed.toOption.collect { case AccountsHeld(h) => h }, Some(Map(held -> Some(gid))), failed.toString)
            assert(failed.failed.get.getMessage.contains(s"$held by prepared transaction $gid"), failed.failed.get.getMessage)
            assertEquals(whileHeld, Set(held))
            assertEquals(after, Set.empty[String])
          } finally {
            scala.util.Try(other.createStatement().execute(s"ROLLBACK PREPARED '$gid'"))
            c.close(); other.close()
          }
        }
      }
    }
  }

  test("missing numbers are probed in iban order: waiting for a number another transaction inserts, the probe has already " +
    "inserted the smaller one (two probes never wait on each other in opposite orders)") {
    BankFixture.create("probeorder").flatMap { bank =>
      val (small, large) = (BankRules.iban(511111111L), BankRules.iban(522222222L))
      connect(bank).flatMap { connect =>
        IO.blocking {
          val (other, c, watch) = (connect(), connect(), connect())
          try {
            assert(small < large)
            // An open creation of the larger number: the probe must wait for it.
            other.setAutoCommit(false)
            other.createStatement().execute(s"INSERT INTO balance (iban, token, type) VALUES ('$large', 't', 'AUTO')")
            val pid = { val rs = c.createStatement().executeQuery("SELECT pg_backend_pid()"); rs.next(); rs.getInt(1) }
            val ledger = new LedgerDb(c)
            // Given larger first: the order must come from the probe, not from its caller.
            val probing = new java.util.concurrent.FutureTask(() => scala.util.Try(ledger.known(Set.empty, Set(large, small))))
            new Thread(probing, "probe").start()
            // A snapshot of the probe's locks while it waits: a transaction id of its own means it wrote (the smaller
            // number) before it began to wait; probing the larger first, it would wait before writing anything.
            val locks = s"SELECT count(*) FILTER (WHERE NOT granted), count(*) FILTER (WHERE granted) FROM pg_locks " +
              s"WHERE pid = $pid AND locktype = 'transactionid'"
            val deadline = System.nanoTime() + 30.seconds.toNanos
            def waiting(): (Long, Long) = {
              val rs = watch.createStatement().executeQuery(locks)
              rs.next()
              val seen = (rs.getLong(1), rs.getLong(2))
              if (seen._1 > 0 || System.nanoTime() > deadline) seen else { Thread.sleep(2); waiting() }
            }
            val (waits, own) = waiting()
            other.rollback()
            val probed = probing.get(60, java.util.concurrent.TimeUnit.SECONDS)
            ledger.rollback()
            assertEquals(waits, 1L, "the probe never waited for the open creation")
            assert(own >= 1L, s"waiting for $large, the probe had inserted nothing: it did not probe $small first")
            assertEquals(probed.map(_.accounts), scala.util.Success(Map.empty[String, Account]), "both numbers unknown once the other rolled back")
          } finally { other.close(); c.close(); watch.close() }
        }
      }
    }
  }
}

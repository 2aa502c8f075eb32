package bankops.jobs.handler

import java.sql.{Connection, PreparedStatement, SQLException}
import java.util.UUID

import bankops.services.bank.BankTables

/** The handler's SQL on one connection: a batch reads what it needs in one round trip (earlier creations and
  * transfers, the accounts it touches locked in iban order so two handlers never deadlock, whether the numbers
  * drawn for new accounts are free), writes in one statement, and ends in PREPARE TRANSACTION: the database holds
  * the batch, locks included, until the Kafka transaction that publishes it has committed.
  */
private[handler] final class LedgerDb(val connection: Connection, stopping: () => Boolean = () => false) {
  connection.setAutoCommit(false)

  private def uuidArray(ids: Iterable[UUID]) = connection.createArrayOf("uuid", ids.toArray[AnyRef])
  private def textArray(values: Iterable[String]) = connection.createArrayOf("text", values.toArray[AnyRef])
  private def longArray(values: Iterable[Long]) = connection.createArrayOf("bigint", values.map(Long.box).toArray[AnyRef])

  /** While a batch's database work runs: when it must be over (nanoTime). */
  @volatile private var deadline: Option[Long] = None

  /** A batch's database work begins, with its Kafka transaction: every statement until PREPARE (or rollback) is cut off
    * once [[LedgerDb.BatchBudget]] has passed (the driver cancels it), so a slow database or a long lock wait undoes and
    * retries the batch instead of outliving the transaction, whose timeout would fence the handler's producer.
    */
  def startBatch(): Unit = deadline = Some(System.nanoTime() + LedgerDb.BatchBudget.toNanos)

  private def bounded[S <: java.sql.Statement, A](st: S)(run: S => A): A =
    try {
      deadline.foreach { d =>
        val left = d - System.nanoTime()
        if (left <= 0) throw new BatchOverBudget
        st.setQueryTimeout(((left + 999999999L) / 1000000000L).toInt)
      }
      run(st)
    } catch {
      case e: SQLException if e.getSQLState == LedgerDb.QueryCanceled && deadline.exists(_ <= System.nanoTime()) => throw new BatchOverBudget
    } finally st.close()

  private def query[A](sql: String)(bind: PreparedStatement => Unit)(row: java.sql.ResultSet => A): Vector[A] =
    bounded(connection.prepareStatement(sql)) { st =>
      bind(st)
      val rs = st.executeQuery()
      val out = Vector.newBuilder[A]
      while (rs.next()) out += row(rs)
      out.result()
    }

  private def update(sql: String)(bind: PreparedStatement => Unit): Unit =
    bounded(connection.prepareStatement(sql)) { st => bind(st); st.execute(); () }

  /** In one round trip: earlier outcomes of these command ids (as either kind: an id is unique across kinds), the
    * accounts of `ibans` locked until the batch ends, and which of the `candidates` (numbers drawn for new accounts)
    * are taken already.
    */
  def known(ids: Set[UUID], ibans: Set[String], candidates: Set[String] = Set.empty): Known = {
    val creations = Map.newBuilder[UUID, CreationRow]
    val transfers = Map.newBuilder[UUID, Option[String]]
    val accounts = Map.newBuilder[String, Account]
    val taken = Set.newBuilder[String]
    try query(LedgerDb.KnownSql) { st =>
        st.setArray(1, textArray(ibans)); st.setArray(2, uuidArray(ids)); st.setArray(3, uuidArray(ids)); st.setArray(4, textArray(candidates))
      } { rs =>
        rs.getString(1) match {
          case "a" => accounts += rs.getString(3) -> Account(rs.getString(3), rs.getString(4), rs.getLong(7), rs.getLong(8))
          case "c" =>
            val id = rs.getObject(2, classOf[UUID])
            creations += id -> CreationRow(id, Option(rs.getString(3)), Option(rs.getString(4)), rs.getString(5), Option(rs.getString(6)))
          case "t" => transfers += rs.getObject(2, classOf[UUID]) -> Option(rs.getString(6))
          case _ => taken += rs.getString(3)
        }
      }
    catch { case e: SQLException if e.getSQLState == LedgerDb.LockNotAvailable => throw AccountsHeld(rowsHeld(ibans)) }
    Known(creations.result(), transfers.result(), accountsAwaitingCreations(ibans, accounts.result()), taken.result())
  }

  /** The accounts, including any whose creation is not committed yet: a batch's AccountCreationConfirmed may already be
    * on Kafka while its row is only prepared (COMMIT PREPARED follows the Kafka commit), and a row inserted by a prepared
    * transaction is neither seen nor waited for by `FOR UPDATE`. The unique index on `balance.iban` sees it: a probe
    * inserting the missing numbers (rolled back at once) waits for whichever transaction inserts one of them and then
    * conflicts if it committed. So exactly the numbers being created now are waited for, whoever creates them (a peer,
    * another group, our own commit in flight); a prepared transaction that creates none of them never holds the batch up.
    */
  private def accountsAwaitingCreations(ibans: Set[String], found: Map[String, Account]): Map[String, Account] = {
    val missing = ibans -- found.keySet
    if (missing.isEmpty) found
    else {
      val created = missing -- absent(missing)
      if (created.isEmpty) found else found ++ accounts(created)
    }
  }

  /** The numbers no row holds and no transaction is inserting. A lock wait is cut into short ones, so a stop request
    * is heard; past [[LedgerDb.PreparedWait]] the batch fails and is retried (recovery settles our group's batches).
    */
  @scala.annotation.tailrec
  private def absent(ibans: Set[String], deadline: Long = System.nanoTime() + LedgerDb.PreparedWait.toNanos): Set[String] = {
    // Rolling back to the savepoint also restores the connection's own lock_timeout.
    statement("SAVEPOINT bankops_probe; SET LOCAL lock_timeout = '200ms'")
    val probed =
      try Right(query(LedgerDb.ProbeSql)(_.setArray(1, textArray(ibans)))(_.getString(1)).toSet)
      catch { case e: SQLException if e.getSQLState == LedgerDb.LockNotAvailable => Left(e) }
      finally statement("ROLLBACK TO SAVEPOINT bankops_probe; RELEASE SAVEPOINT bankops_probe")
    probed match {
      case Right(absent) => absent
      case Left(_) if stopping() => throw new HandlerStopping
      case Left(_) if System.nanoTime() > deadline => throw AccountsHeld(creationsHeld(ibans).map(_ -> None).toMap)
      case Left(_) => absent(ibans, deadline)
    }
  }

  /** After a lock wait timed out: which of these accounts some transaction holds now, each with the prepared
    * transaction's id when it is one (found by the row's locker, xmax), without waiting. The batch's transaction is
    * rolled back first (the timeout aborted it) and after.
    */
  private def rowsHeld(ibans: Set[String]): Map[String, Option[String]] = {
    rollback()
    try lockedRows(ibans)
    finally rollback()
  }

  /** Of these accounts, those whose rows a transaction locks now, each with its prepared transaction's gid if any. */
  private def lockedRows(ibans: Set[String]): Map[String, Option[String]] =
    query(LedgerDb.HeldSql) { st => st.setArray(1, textArray(ibans)); st.setArray(2, textArray(ibans)) }(rs =>
      rs.getString(1) -> Option(rs.getString(2))).toMap

  /** Which of these numbers a transaction is inserting now (a probe each, that waits 20 ms at most): a creation held
    * prepared by a handler that died, or another deployment's.
    */
  private def creationsHeld(ibans: Set[String]): Set[String] = {
    deadline = None // the batch has failed: its budget no longer applies
    ibans.toList.sorted.filter { iban =>
      statement("SAVEPOINT bankops_held; SET LOCAL lock_timeout = '20ms'")
      try { query(LedgerDb.ProbeSql)(_.setArray(1, textArray(List(iban))))(_ => ()); false }
      catch { case e: SQLException if e.getSQLState == LedgerDb.LockNotAvailable => true }
      finally statement("ROLLBACK TO SAVEPOINT bankops_held; RELEASE SAVEPOINT bankops_held")
    }.toSet
  }

  /** Of accounts found held before, the ones still held: rows locked, or numbers being inserted. Waits for nothing; the
    * transaction it runs in is rolled back.
    */
  def stillHeld(ibans: Set[String]): Set[String] =
    try {
      lockedRows(ibans).keySet ++ creationsHeld(ibans -- taken(ibans))
    } finally rollback()

  /** Waits until none of these prepared transactions is left (settled by the handler that prepared them, or by recovery). */
  def awaitSettled(gids: Set[String]): Unit = {
    val deadline = System.nanoTime() + LedgerDb.PreparedWait.toNanos
    def left = query("SELECT gid FROM pg_prepared_xacts WHERE gid = ANY (?)")(_.setArray(1, textArray(gids)))(_.getString(1))
    var waiting = left
    while (waiting.nonEmpty) {
      if (System.nanoTime() > deadline) throw PreparedBatchPending.settling(waiting.head)
      if (stopping()) throw new HandlerStopping
      Thread.sleep(2)
      waiting = left
    }
  }

  /** Accounts by iban, locked (FOR UPDATE) in iban order. */
  def accounts(ibans: Set[String]): Map[String, Account] =
    if (ibans.isEmpty) Map.empty
    else query(LedgerDb.AccountsSql)(_.setArray(1, textArray(ibans))) { rs =>
      rs.getString(1) -> Account(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4))
    }.toMap

  /** Which of these ibans are taken already. */
  def taken(ibans: Set[String]): Set[String] =
    if (ibans.isEmpty) Set.empty
    else query(LedgerDb.TakenSql)(_.setArray(1, textArray(ibans)))(_.getString(1)).toSet

  /** The batch's rows in one statement: new accounts (inserted with their amounts after the batch), the other
    * accounts' amounts, and the outcomes of its new commands.
    */
  def write(a: Applied): Unit = if (a.writes) try writeRows(a)
  catch {
    case e: SQLException =>
      LedgerDb.conflict(e) match {
        case Some(applied: CommandApplied) => throw purged(a).getOrElse(applied)
        case other => throw other.getOrElse(e)
      }
  }

  /** After a command id conflicted in `cid`: the batch's ids that `cid` holds with no outcome in `cac` or `cmt` (a
    * person purged those rows and kept `cid`). Such an id can never be answered as it was, and redoing the batch would
    * conflict again for ever: they are named, for the loop to dead-letter them. The batch's transaction is rolled back.
    */
  private def purged(a: Applied): Option[CommandsPurged] = {
    rollback()
    val ids = (a.creations.map(_.id) ++ a.transfers.map(_._1)).distinct
    try Option(query(LedgerDb.PurgedSql)(_.setArray(1, uuidArray(ids)))(_.getObject(1, classOf[UUID])).toSet).filter(_.nonEmpty)
        .map(new CommandsPurged(_))
    finally rollback()
  }

  private def writeRows(a: Applied): Unit = update(LedgerDb.WriteSql) { st =>
    val accounts = a.newAccounts.map(_._1)
    val created = accounts.map(_.iban).toSet
    val changed = a.amounts.toVector.filterNot { case (iban, _) => created(iban) }
    st.setArray(1, textArray(accounts.map(_.iban))); st.setArray(2, textArray(accounts.map(_.token)))
    st.setArray(3, longArray(accounts.map(n => a.amounts.getOrElse(n.iban, n.amount)))); st.setArray(4, textArray(a.newAccounts.map(_._2)))
    st.setArray(5, longArray(accounts.map(_.lmt)))
    st.setArray(6, textArray(changed.map(_._1))); st.setArray(7, longArray(changed.map(_._2)))
    st.setArray(8, uuidArray(a.creations.map(_.id))); st.setArray(9, textArray(a.creations.map(_.iban.orNull)))
    st.setArray(10, textArray(a.creations.map(_.token.orNull))); st.setArray(11, textArray(a.creations.map(_.aType)));
    st.setArray(12, textArray(a.creations.map(_.reason.orNull)))
    st.setArray(13, uuidArray(a.transfers.map(_._1))); st.setArray(14, textArray(a.transfers.map(_._2.orNull)))
    // In the index's order (PostgreSQL compares uuids as bytes, as their text sorts): neighbouring keys land on the same
    // pages one after another, and two batches inserting the same ids take them in one order (no deadlock).
    st.setArray(15, uuidArray((a.creations.map(_.id) ++ a.transfers.map(_._1)).sortBy(_.toString)))
  }

  private def statement(sql: String): Unit = bounded(connection.createStatement()) { st => st.execute(sql); () }

  /** Ends the batch's transaction as prepared: durable, locks held, committed or rolled back later by `gid`. The
    * connection is left as every batch needs it, outside autocommit: the next batch's reads lock its accounts until
    * its own PREPARE (COMMIT PREPARED runs elsewhere, so nothing else puts it back).
    */
  def prepare(gid: String): Unit = {
    // Never cut off: a prepared batch is settled by its marker, a half-done PREPARE would only be noise.
    deadline = None
    statement(s"PREPARE TRANSACTION '$gid'")
    // The session has no transaction now: this ends the driver's, and the next statement begins a new one.
    connection.setAutoCommit(true)
    connection.setAutoCommit(false)
  }

  def commitPrepared(gid: String): Unit = finish(s"COMMIT PREPARED '$gid'")
  def rollbackPrepared(gid: String): Unit = finish(s"ROLLBACK PREPARED '$gid'")

  // COMMIT/ROLLBACK PREPARED may not run inside a transaction block.
  private def finish(sql: String): Unit = {
    connection.setAutoCommit(true)
    try statement(sql)
    finally connection.setAutoCommit(false)
  }

  def rollback(): Unit = {
    deadline = None
    if (!connection.getAutoCommit) connection.rollback() else connection.setAutoCommit(false)
  }

  /** Prepared transactions left by handlers whose ids start with `prefix` (a crash between PREPARE and COMMIT PREPARED). */
  def prepared(prefix: String): Vector[String] = {
    rollback()
    val gids = query("SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE ? ORDER BY prepared")(
      _.setString(1, prefix.replace("_", "\\_").replace("%", "\\%") + "%"))(_.getString(1))
    connection.rollback()
    gids
  }

  /** The bank's tables this database lacks (in the connection's search path), and the database's name. */
  def missingTables: (List[String], String) = {
    val missing =
      query("SELECT t FROM unnest(ARRAY['balance', 'cac', 'cmt', 'cid']) AS t WHERE to_regclass(t) IS NULL")(_ => ())(_.getString(1)).toList
    val name = query("SELECT current_database()")(_ => ())(_.getString(1)).head
    connection.rollback()
    (missing, name)
  }

  /** Whether `balance.iban` is unique (then Right), else the numbers held twice now, if any. */
  def uniqueIbans: Either[List[(String, Long)], Unit] = {
    val unique = query(BankTables.HasUniqueIbanSql)(_ => ())(_.getBoolean(1)).headOption.contains(true)
    val result = if (unique) Right(()) else Left(BankTables.duplicateIbans(connection))
    connection.rollback()
    result
  }

  /** PostgreSQL's max_prepared_transactions: 0 disables PREPARE TRANSACTION, which the handler needs. */
  def maxPreparedTransactions: Int = {
    val n = query("SHOW max_prepared_transactions")(_ => ())(_.getString(1)).headOption.flatMap(_.toIntOption).getOrElse(0)
    connection.rollback()
    n
  }

  def close(): Unit = scala.util.Try(connection.close())
}

private[handler] object LedgerDb {
  /* Every lookup by a batch's keys joins the table to the keys' array rather than testing `key = ANY (array)`. The
   * driver prepares a statement on the server after five runs, and PostgreSQL may then keep one generic plan,
   * costed for an array of 10 and for the tables' sizes at that moment: while `cac` was small that was a sequential
   * scan comparing every row with all 1,000 ids, 70 of a batch's 170 ms by 100,000 commands (auto_explain at
   * saturation, tests/bench/handler-throughput.sh). Joined, no plan is worse than linear in rows plus keys. */

  /** The accounts of an iban array, locked in iban order (so two handlers never deadlock). */
  private val AccountsSql =
    "SELECT b.iban, b.token, b.amount, b.lmt FROM unnest(?::text[]) AS k(iban) JOIN balance b ON b.iban = k.iban ORDER BY b.iban FOR UPDATE OF b"

  /** Of these accounts, those whose rows a transaction locks now (SKIP LOCKED leaves them out without waiting), each
    * with the id of the prepared transaction that locks it, if a prepared one does.
    */
  private val HeldSql =
    """SELECT b.iban, p.gid FROM balance b LEFT JOIN pg_prepared_xacts p ON p.transaction = b.xmax
      |WHERE b.iban = ANY (?) AND b.iban NOT IN (SELECT iban FROM balance WHERE iban = ANY (?) FOR UPDATE SKIP LOCKED)""".stripMargin

  private val PurgedSql =
    """SELECT i.uuid FROM unnest(?::uuid[]) AS k(id) JOIN cid i ON i.uuid = k.id
      |WHERE NOT EXISTS (SELECT 1 FROM cac WHERE uuid = k.id) AND NOT EXISTS (SELECT 1 FROM cmt WHERE uuid = k.id)""".stripMargin

  private val TakenSql = "SELECT b.iban FROM unnest(?::text[]) AS k(iban) JOIN balance b ON b.iban = k.iban"

  /** Tagged rows: `a` an account (locked, in iban order, so two handlers never deadlock), `c` an earlier creation,
    * `t` an earlier transfer, `n` a drawn number that is taken.
    */
  private val KnownSql =
    s"""WITH a AS ($AccountsSql)
       |SELECT 'a', NULL::uuid, iban, token, NULL::text, NULL::text, amount, lmt FROM a
       |UNION ALL SELECT 'c', c.uuid, c.iban, c.token, c.type, c.reason, NULL::bigint, NULL::bigint
       |  FROM unnest(?::uuid[]) AS k(id) JOIN cac c ON c.uuid = k.id
       |UNION ALL SELECT 't', t.uuid, NULL, NULL, NULL, t.reason, NULL, NULL FROM unnest(?::uuid[]) AS k(id) JOIN cmt t ON t.uuid = k.id
       |UNION ALL SELECT 'n', NULL, n.iban, NULL, NULL, NULL, NULL, NULL FROM ($TakenSql) AS n""".stripMargin

  /** Inserts the numbers that no row holds and no transaction is inserting (waiting for those that one is), returning
    * them; run inside a savepoint that is rolled back at once. Each probe row carries a negative `balance_id` of its
    * own (from its number's hash) rather than drawing one from the identity: a rolled-back draw is never given back, so
    * transfers between outside numbers used up the 32-bit identity (a day of a hostile client's traffic), after which
    * every account creation failed. Real accounts take positive ids; two probes of numbers whose hashes meet wait on
    * each other for the moment a probe lasts, and a conflict of any kind reads as "not absent", which the locked
    * read after it settles. In number order, as the locked read takes its rows: two probes of the same numbers in
    * opposite orders would wait on each other under the 200 ms lock timeout, below PostgreSQL's deadlock detection (1 s).
    */
  private val ProbeSql =
    "INSERT INTO balance (balance_id, iban, token, type) SELECT -1 - (hashtext(k.iban) & 2147483646), k.iban, '', '' " +
      "FROM unnest(?::text[]) AS k(iban) ORDER BY k.iban ON CONFLICT DO NOTHING RETURNING iban"

  private val LockNotAvailable = "55P03"
  private val QueryCanceled = "57014"

  /** How long a batch's database work may take, from its Kafka transaction's start: well inside the producer's
    * `transaction.timeout.ms` (10 s), with room for the sends, PREPARE and the commit.
    */
  val BatchBudget: java.time.Duration = java.time.Duration.ofSeconds(6)
  private val Key = """\((?:iban|uuid)\)=\((.*)\)""".r.unanchored

  /** What a unique violation of a batch's write means: a number drawn for a new account that another batch created
    * after this one checked it (`balance`), or a command id another batch applied meanwhile, as either kind (`cid`,
    * `cac`, `cmt`). Either way that batch was prepared or in flight, so invisible: this one is redone.
    */
  def conflict(e: SQLException): Option[RuntimeException] = e match {
    case p: org.postgresql.util.PSQLException if p.getSQLState == "23505" =>
      Option(p.getServerErrorMessage).flatMap { m =>
        val key = Option(m.getDetail).collect { case Key(k) => k }.getOrElse("(unnamed)")
        Option(m.getTable).collect {
          case "balance" => new IbanTaken(key)
          case "cid" | "cac" | "cmt" => new CommandApplied(key)
        }
      }
    case _ => None
  }

  /** Data-modifying parts of one statement all see the same snapshot: the UPDATE cannot see the rows the INSERT adds,
    * so new accounts are inserted with their final amounts and updated no further.
    */
  private val WriteSql =
    """WITH nb AS (INSERT INTO balance (iban, token, amount, type, lmt)
      |            SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[], ?::bigint[])),
      |     ub AS (UPDATE balance b SET amount = v.amount, updated_at = now() FROM unnest(?::text[], ?::bigint[]) AS v(iban, amount)
      |            WHERE b.iban = v.iban),
      |     nc AS (INSERT INTO cac (uuid, iban, token, type, reason) SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[])),
      |     nt AS (INSERT INTO cmt (uuid, reason) SELECT * FROM unnest(?::uuid[], ?::text[])),
      |     ni AS (INSERT INTO cid (uuid) SELECT * FROM unnest(?::uuid[]))
      |SELECT 1""".stripMargin

  /** Every prepared transaction a bankops handler makes starts with this. */
  val GidRoot = "bankops-handler:"
  /** How long a batch waits for another handler's prepared batch that may hold an account it needs (the lock timeout). */
  val PreparedWait: java.time.Duration = java.time.Duration.ofSeconds(5)
}

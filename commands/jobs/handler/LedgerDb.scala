package bankops.jobs.handler

import java.sql.{Connection, PreparedStatement}
import java.util.UUID

/** The handler's SQL on one connection: a batch reads what it needs with one query per kind (earlier
  * creations, earlier transfers, the accounts it touches, locked in iban order so two handlers never
  * deadlock), writes with one statement per kind, and ends in PREPARE TRANSACTION: the database holds
  * the batch, locks included, until the Kafka transaction that publishes it has committed.
  */
final class LedgerDb(val connection: Connection, stopping: () => Boolean = () => false) {
  connection.setAutoCommit(false)

  private def uuidArray(ids: Iterable[UUID]) = connection.createArrayOf("uuid", ids.toArray[AnyRef])
  private def textArray(values: Iterable[String]) = connection.createArrayOf("text", values.toArray[AnyRef])
  private def longArray(values: Iterable[Long]) = connection.createArrayOf("bigint", values.map(Long.box).toArray[AnyRef])

  private def query[A](sql: String)(bind: PreparedStatement => Unit)(row: java.sql.ResultSet => A): Vector[A] = {
    val st = connection.prepareStatement(sql)
    try {
      bind(st)
      val rs = st.executeQuery()
      val out = Vector.newBuilder[A]
      while (rs.next()) out += row(rs)
      out.result()
    } finally st.close()
  }

  private def update(sql: String)(bind: PreparedStatement => Unit): Unit = {
    val st = connection.prepareStatement(sql)
    try { bind(st); st.executeUpdate(); () } finally st.close()
  }

  /** Earlier outcomes of these command ids (as either kind: an id is unique across kinds), and the accounts of `ibans`,
    * locked until the batch ends.
    */
  def known(ids: Set[UUID], ibans: Set[String]): Known = {
    val creations = if (ids.isEmpty) Vector.empty else
      query("SELECT uuid, iban, token, type, reason FROM cac WHERE uuid = ANY (?)")(_.setArray(1, uuidArray(ids))) { rs =>
        val id = rs.getObject(1, classOf[UUID])
        id -> CreationRow(id, Option(rs.getString(2)), Option(rs.getString(3)), rs.getString(4), Option(rs.getString(5)))
      }
    val transfers = if (ids.isEmpty) Vector.empty else
      query("SELECT uuid, reason FROM cmt WHERE uuid = ANY (?)")(_.setArray(1, uuidArray(ids)))(rs =>
        rs.getObject(1, classOf[UUID]) -> Option(rs.getString(2)))
    Known(creations.toMap, transfers.toMap, accountsAwaitingCreations(ibans))
  }

  /** The accounts, including any whose creation another handler has prepared but not yet committed. Such a batch's
    * AccountCreationConfirmed may already be on Kafka (COMMIT PREPARED follows the Kafka commit), and a row inserted by
    * a prepared transaction is neither seen nor waited for by `FOR UPDATE`: so when an account number is missing while
    * bankops handlers' batches are prepared, those batches are waited for and the missing numbers read again. Listing
    * the prepared batches before reading again is what makes it exact: a creation confirmed to anyone was prepared
    * before, so it is either listed (and waited for) or committed before the second read.
    */
  private def accountsAwaitingCreations(ibans: Set[String]): Map[String, Account] = {
    val found = accounts(ibans)
    val missing = ibans -- found.keySet
    if (missing.isEmpty) found
    else {
      val pending = query(s"SELECT gid FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE '${LedgerDb.GidRoot}%'")(_ => ())(_.getString(1))
      if (pending.nonEmpty) awaitSettled(pending.toSet, stopping)
      found ++ accounts(missing)
    }
  }

  /** Waits until none of these prepared transactions is left (settled by the handler that prepared them, or by recovery). */
  def awaitSettled(gids: Set[String], stopping: () => Boolean): Unit = {
    val deadline = System.nanoTime() + LedgerDb.PreparedWait.toNanos
    def left = query("SELECT gid FROM pg_prepared_xacts WHERE gid = ANY (?)")(_.setArray(1, textArray(gids)))(_.getString(1))
    var waiting = left
    while (waiting.nonEmpty) {
      if (System.nanoTime() > deadline) throw new PreparedBatchPending(waiting.head)
      if (stopping()) throw new HandlerStopping
      Thread.sleep(2)
      waiting = left
    }
  }

  /** Accounts by iban, locked (FOR UPDATE) in iban order. */
  def accounts(ibans: Set[String]): Map[String, Account] =
    if (ibans.isEmpty) Map.empty
    else query("SELECT iban, token, amount, lmt FROM balance WHERE iban = ANY (?) ORDER BY iban FOR UPDATE")(_.setArray(1, textArray(ibans))) { rs =>
      rs.getString(1) -> Account(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4))
    }.toMap

  /** Which of these ibans are taken already. */
  def taken(ibans: Set[String]): Set[String] =
    if (ibans.isEmpty) Set.empty
    else query("SELECT iban FROM balance WHERE iban = ANY (?)")(_.setArray(1, textArray(ibans)))(_.getString(1)).toSet

  def write(a: Applied): Unit = {
    if (a.newAccounts.nonEmpty) update(
      "INSERT INTO balance (iban, token, amount, type, lmt) SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[], ?::bigint[])") { st =>
      val accounts = a.newAccounts.map(_._1)
      st.setArray(1, textArray(accounts.map(_.iban))); st.setArray(2, textArray(accounts.map(_.token)))
      st.setArray(3, longArray(accounts.map(_.amount))); st.setArray(4, textArray(a.newAccounts.map(_._2))); st.setArray(5, longArray(accounts.map(_.lmt)))
    }
    if (a.amounts.nonEmpty) update(
      "UPDATE balance b SET amount = v.amount, updated_at = now() FROM unnest(?::text[], ?::bigint[]) AS v(iban, amount) WHERE b.iban = v.iban") { st =>
      val rows = a.amounts.toVector
      st.setArray(1, textArray(rows.map(_._1))); st.setArray(2, longArray(rows.map(_._2)))
    }
    if (a.creations.nonEmpty) update("INSERT INTO cac (uuid, iban, token, type, reason) SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[])") { st =>
      st.setArray(1, uuidArray(a.creations.map(_.id))); st.setArray(2, textArray(a.creations.map(_.iban.orNull)))
      st.setArray(3, textArray(a.creations.map(_.token.orNull))); st.setArray(4, textArray(a.creations.map(_.aType))); st.setArray(5, textArray(a.creations.map(_.reason.orNull)))
    }
    if (a.transfers.nonEmpty) update("INSERT INTO cmt (uuid, reason) SELECT * FROM unnest(?::uuid[], ?::text[])") { st =>
      st.setArray(1, uuidArray(a.transfers.map(_._1))); st.setArray(2, textArray(a.transfers.map(_._2.orNull)))
    }
  }

  private def statement(sql: String): Unit = { val st = connection.createStatement(); try { st.execute(sql); () } finally st.close() }

  /** Ends the batch's transaction as prepared: durable, locks held, committed or rolled back later by `gid`. */
  def prepare(gid: String): Unit = {
    statement(s"PREPARE TRANSACTION '$gid'")
    connection.setAutoCommit(true)
  }

  def commitPrepared(gid: String): Unit = finish(s"COMMIT PREPARED '$gid'")
  def rollbackPrepared(gid: String): Unit = finish(s"ROLLBACK PREPARED '$gid'")

  // COMMIT/ROLLBACK PREPARED may not run inside a transaction block.
  private def finish(sql: String): Unit = {
    connection.setAutoCommit(true)
    try statement(sql) finally connection.setAutoCommit(false)
  }

  def rollback(): Unit = if (!connection.getAutoCommit) connection.rollback() else connection.setAutoCommit(false)

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
    val missing = query("SELECT t FROM unnest(ARRAY['balance', 'cac', 'cmt']) AS t WHERE to_regclass(t) IS NULL")(_ => ())(_.getString(1)).toList
    val name = query("SELECT current_database()")(_ => ())(_.getString(1)).head
    connection.rollback()
    (missing, name)
  }

  /** PostgreSQL's max_prepared_transactions: 0 disables PREPARE TRANSACTION, which the handler needs. */
  def maxPreparedTransactions: Int = {
    val n = query("SHOW max_prepared_transactions")(_ => ())(_.getString(1)).headOption.flatMap(_.toIntOption).getOrElse(0)
    connection.rollback()
    n
  }

  def close(): Unit = scala.util.Try(connection.close())
}

object LedgerDb {
  /** Every prepared transaction a bankops handler makes starts with this. */
  val GidRoot = "bankops-handler:"
  /** How long a batch waits for another handler's prepared batch that may hold an account it needs (the lock timeout). */
  val PreparedWait: java.time.Duration = java.time.Duration.ofSeconds(5)
}

/** A prepared batch that may hold an account this batch needs was not settled in time (its handler may have died): the
  * batch is undone and retried after recovery has settled it.
  */
/** A wait cut short because the handler was asked to stop (SIGTERM): the batch is undone like any failed one. */
final class HandlerStopping extends RuntimeException("the handler is stopping") with scala.util.control.NoStackTrace

final class PreparedBatchPending(gid: String)
    extends RuntimeException(s"waited ${LedgerDb.PreparedWait.toSeconds} s for prepared batch $gid, which may hold an account this batch needs")

package bankops.jobs.balances

import cats.effect.{IO, Resource}

import java.sql.{Connection, SQLException}
import scala.concurrent.duration.FiniteDuration

import bankops.base.Failure
import bankops.services.config.{Database, DatabaseSettings, Secrets}

/** Reads `balance` (iban, amount, lmt) from PostgreSQL in one streaming query. */
final class BalanceTable(connection: Connection, table: String) {

  /** Every row, fetched in batches (a cursor, not the whole table in memory at once); `keep` filters by iban. */
  def all(keep: String => Boolean): IO[Map[String, DbAccount]] = IO.blocking {
    val st = connection.prepareStatement(s"SELECT iban, amount, lmt FROM $table")
    st.setFetchSize(10000)
    val rs = st.executeQuery()
    val out = scala.collection.mutable.HashMap.empty[String, DbAccount]
    while (rs.next()) { val iban = rs.getString(1); if (keep(iban)) BalanceTable.add(out, DbAccount(iban, rs.getLong(2), rs.getLong(3))) }
    rs.close(); st.close()
    out.toMap
  }

  def some(ibans: Set[String]): IO[Map[String, DbAccount]] = IO.blocking {
    val st = connection.prepareStatement(s"SELECT iban, amount, lmt FROM $table WHERE iban = ANY (?)")
    st.setArray(1, connection.createArrayOf("text", ibans.toArray[AnyRef]))
    val rs = st.executeQuery()
    val out = scala.collection.mutable.HashMap.empty[String, DbAccount]
    while (rs.next()) BalanceTable.add(out, DbAccount(rs.getString(1), rs.getLong(2), rs.getLong(3)))
    rs.close(); st.close()
    out.toMap
  }
}

object BalanceTable {
  /** A row, or one more row holding an iban already read (counted, the first row's figures kept). */
  private def add(rows: scala.collection.mutable.HashMap[String, DbAccount], row: DbAccount): Unit =
    rows.updateWith(row.iban) {
      case Some(first) => Some(first.copy(rows = first.rows + 1))
      case None => Some(row)
    }: Unit

  private val Name = """[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?""".r

  /** A read-only session; an unreachable database or a refused login is exit 3 naming the database, never the password. */
  def open(db: DatabaseSettings, table: String, timeout: FiniteDuration): Resource[IO, BalanceTable] = {
    for {
      _ <- Resource.eval(IO.raiseUnless(Name.matches(table))(Failure.BadInput(s"--table '$table' is not a table name")))
      c <- Database.session(db, "balances validate", timeout).evalTap(c =>
        IO.blocking {
          c.setReadOnly(true)
          c.setAutoCommit(false) // a cursor needs a transaction; it is also one consistent snapshot of the table
        })
      t = new BalanceTable(c, table)
    } yield t
  }

  def failure(table: String, db: DatabaseSettings): PartialFunction[Throwable, Throwable] = {
    case e: SQLException if e.getSQLState == "42P01" => Failure.BadInput(s"table $table does not exist in ${Secrets.maskUrl(db.url.value)}")
    case e: SQLException if e.getSQLState == "42703" => Failure.BadInput(s"table $table has no iban, amount and lmt columns: ${firstLine(e)}")
  }

  private def firstLine(e: SQLException) = Option(e.getMessage).getOrElse(e.getClass.getSimpleName).linesIterator.next()
}

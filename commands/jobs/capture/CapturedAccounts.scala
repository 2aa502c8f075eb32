package bankops.jobs.capture

import cats.effect.IO
import cats.syntax.all._
import io.circe.Codec
import io.circe.generic.semiauto._

import scala.concurrent.duration.FiniteDuration

import bankops.base.{Failure, JsonInput, TextFile}
import bankops.services.bank.BankTables
import bankops.services.config.{Database, DatabaseSettings}

/** An account's `balance` row as the database had it. */
private[capture] final case class CapturedAccount(iban: String, token: String, amount: Long, `type`: String, lmt: Long)

/** The accounts asked for: their rows, and the topic whose BalanceChanged chains were captured beside them. */
private[capture] final case class CapturedAccounts(balanceTopic: String, rows: List[CapturedAccount], missing: List[String])

private[capture] object CapturedAccounts {
  val File = "accounts.json"

  /** Where the captured chains are kept: apart from the window's records, since they go back further. */
  def chains(topic: String): String = s"accounts/$topic.jsonl"

  implicit val accountCodec: Codec.AsObject[CapturedAccount] = deriveCodec
  implicit val codec: Codec.AsObject[CapturedAccounts] = deriveCodec

  /** The record fields (as --redact names them) whose values a `balance` row holds too, and that row's column. */
  val Columns: Map[String, String] = Map("token" -> "token", "new_balance" -> "amount", "amount" -> "amount", "a_type" -> "type")

  /** Pure: the rows with every column a --redact field names masked as the field is (text `****`, numbers 0). The iban
    * is the rows' key and never masked: capture refuses --redact iban with accounts.
    */
  def redacted(rows: List[CapturedAccount], fields: List[String]): List[CapturedAccount] = {
    val columns = fields.map(_.split('.').last).flatMap(Columns.get).toSet
    rows.map(r =>
      r.copy(token = if (columns("token")) Redaction.Mask else r.token, amount = if (columns("amount")) 0L else r.amount,
        `type` = if (columns("type")) Redaction.Mask else r.`type`))
  }

  /** The accounts a `balances validate -o json` run flagged: each finding line's non-empty `iban`. */
  def fromFindings(file: os.Path): Either[String, List[String]] =
    TextFile.lines(file, "--from-findings").flatMap(_.zipWithIndex.filter(_._1.trim.nonEmpty).traverse { case (line, i) =>
      JsonInput.parse(line).left.map(e => s"$file:${i + 1}: $e").flatMap(_.hcursor.get[String]("iban").toOption.filter(_.nonEmpty)
          .traverse(checked(_, s"$file:${i + 1}")))
    }).map(_.flatten.distinct)

  /** An account number as a query can take it: no control character (PostgreSQL refuses a NUL in text). */
  def checked(iban: String, where: String): Either[String, String] =
    iban.find(Character.isISOControl).fold[Either[String, String]](Right(iban))(c =>
      Left(f"$where: iban '${iban.filterNot(Character.isISOControl)}' holds a control character (U+${c.toInt}%04X)"))

  /** The rows of `ibans` in `balance`. */
  def rows(db: DatabaseSettings, ibans: List[String], timeout: FiniteDuration): IO[List[CapturedAccount]] =
    Database.session(db, "bankops-capture", timeout).use { c =>
      IO.blocking {
        val st = c.prepareStatement("SELECT iban, token, amount, type, lmt FROM balance WHERE iban = ANY(?) ORDER BY iban")
        st.setArray(1, c.createArrayOf("text", ibans.toArray[AnyRef]))
        val rs = st.executeQuery()
        Iterator.continually(rs).takeWhile(_.next()).map(r =>
          CapturedAccount(r.getString(1), r.getString(2), r.getLong(3), r.getString(4), r.getLong(5))).toList
      }
    }

  /** The rows written into `database` on the target's server, created with the bank's tables, in one transaction; a
    * database that already holds any account is refused (a restore never mixes into accounts it did not write), unless
    * resuming and it holds exactly the captured ibans: an interrupted restore wrote them.
    */
  def restore(db: DatabaseSettings, database: String, rows: List[CapturedAccount], resume: Boolean, timeout: FiniteDuration)
      : IO[DatabaseSettings] = {
    val Url = "(jdbc:postgresql://[^/?]+/)[^?]*(.*)".r
    val target = db.url.value match {
      case Url(server, params) => Right(db.copy(url = db.url.copy(value = s"$server$database$params")))
      case other => Left(Failure.BadInput(s"the database URL $other (${db.url.source.describe}) names no database after its host: " +
            "give one as jdbc:postgresql://HOST:PORT/DATABASE to restore the accounts next to it"))
    }
    IO.fromEither(target).flatMap(restoreInto(db, _, database, rows, resume, timeout))
  }

  private def restoreInto(db: DatabaseSettings, target: DatabaseSettings, database: String, rows: List[CapturedAccount], resume: Boolean,
                          timeout: FiniteDuration): IO[DatabaseSettings] = {
    Database.session(db, "bankops-restore", timeout).use { c =>
      IO.blocking {
        val exists = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")
        exists.setString(1, database)
        if (!exists.executeQuery().next()) c.createStatement().execute(s"""CREATE DATABASE "$database"""")
      }
    } >> Database.session(target, "bankops-restore", timeout).use { c =>
      IO.blocking {
        BankTables.install(c)
        // install seeds the bank's first account; the restored database holds the captured accounts only.
        val rs = c.createStatement().executeQuery("SELECT iban FROM balance WHERE balance_id <> 0")
        val held = Iterator.continually(rs).takeWhile(_.next()).map(_.getString(1)).toSet
        val done = resume && held.nonEmpty && held == rows.map(_.iban).toSet
        if (held.nonEmpty && !done) throw Failure.BadInput(s"database $database already holds ${held.size} account(s): a restore never mixes " +
          "into accounts it did not write (--db-name another)")
        if (!done) {
          c.setAutoCommit(false)
          c.createStatement().execute("DELETE FROM balance WHERE balance_id = 0")
          val st = c.prepareStatement("INSERT INTO balance (iban, token, amount, type, lmt) VALUES (?, ?, ?, ?, ?)")
          rows.foreach { r =>
            st.setString(1, r.iban); st.setString(2, r.token); st.setLong(3, r.amount); st.setString(4, r.`type`); st.setLong(5, r.lmt)
            st.addBatch()
          }
          st.executeBatch()
          c.commit()
        }
      }
    }.as(target)
  }
}

package bankops.services.config

import cats.effect.{IO, Resource}

import java.sql.{Connection, DriverManager, SQLException}
import java.util.Properties
import scala.concurrent.duration.FiniteDuration

import bankops.base.Failure

/** The one place PostgreSQL connections are made: the settings' URL, user and password, a connect and socket
  * timeout, and the job's name for `pg_stat_activity`. An unreachable database or a refused login is exit 3
  * naming the database, never the password.
  */
object Database {
  def connect(db: DatabaseSettings, application: String, timeout: FiniteDuration): IO[Connection] =
    IO.blocking(open(db, application, timeout)).adaptError { case e: SQLException => unreachable(db, e) }

  /** A connection for the length of a job's use, closed after it. */
  def session(db: DatabaseSettings, application: String, timeout: FiniteDuration): Resource[IO, Connection] =
    Resource.make(connect(db, application, timeout))(c => IO.blocking(c.close()))

  /** The JDBC URL names PostgreSQL's driver; any other (or none) is a setting to fix, not a database to retry. */
  def checkUrl(db: DatabaseSettings): Either[String, Unit] =
    if (db.url.value.startsWith("jdbc:postgresql:")) Right(())
    else Left(s"${db.url.source.describe}: '${Secrets.maskUrl(db.url.value)}' is not a PostgreSQL JDBC URL (jdbc:postgresql://HOST:PORT/DATABASE)")

  /** Blocking, for loops that reconnect on their own thread. A URL for another driver is [[Failure.BadInput]]. */
  def open(db: DatabaseSettings, application: String, timeout: FiniteDuration): Connection = {
    checkUrl(db).left.foreach(m => throw Failure.BadInput(m))
    val props = new Properties()
    props.setProperty("user", db.user.value)
    db.password.foreach(p => props.setProperty("password", p.value))
    props.setProperty("connectTimeout", timeout.toSeconds.max(1).toString)
    // The whole login, not only the TCP connect: a server that accepts and never answers is given the timeout, no more.
    props.setProperty("loginTimeout", timeout.toSeconds.max(1).toString)
    // A server that accepts and never answers must not hang a job: no single statement of bankops' takes this long.
    props.setProperty("socketTimeout", (timeout.toSeconds * 2).max(10).toString)
    props.setProperty("tcpKeepAlive", "true")
    props.setProperty("ApplicationName", s"bankops $application")
    DriverManager.getConnection(db.url.value, props)
  }

  def unreachable(db: DatabaseSettings, e: SQLException): Failure =
    Failure.Unavailable(
      s"PostgreSQL database ${Secrets.maskUrl(db.url.value)} (user ${db.user.value}) refused or could not be reached: " +
        Option(e.getMessage).getOrElse(e.getClass.getSimpleName).linesIterator.next(), e)
}

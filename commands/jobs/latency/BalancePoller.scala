package bankops.jobs.latency

import cats.effect.{Deferred, IO, Ref, Resource}
import cats.syntax.all._

import java.sql.{Connection, SQLException}
import scala.concurrent.duration._

import bankops.base.Failure
import bankops.services.config.{Database, DatabaseSettings, Secrets}

/** Polls the probe account's `balance.amount` every 20 ms while a probe waits for it, as the original client polled its
  * screen. Deposits only add, and only the probes touch the account, so a probe is shown once the amount reaches the
  * sum of the deposits up to it.
  */
private[latency] final class BalancePoller private (db: DatabaseSettings, connection: Connection, iban: String, expected: Ref[IO, Long],
                                                    waiting: Ref[IO, List[(Long, Deferred[IO, Long])]]) {

  /** Registers a deposit of `amount` about to be sent; completes with the monotonic nanoseconds the amount showed it. */
  def expectDeposit(amount: Long): IO[Deferred[IO, Long]] =
    Deferred[IO, Long].flatTap(d => expected.updateAndGet(_ + amount).flatMap(total => waiting.update((total, d) :: _)))

  private def amount: IO[Option[Long]] = IO.blocking {
    val st = connection.prepareStatement("SELECT amount FROM balance WHERE iban = ?")
    try {
      st.setString(1, iban)
      val rs = st.executeQuery()
      if (rs.next()) Some(rs.getLong(1)) else None
    } finally st.close()
  }.adaptError { case e: SQLException => BalancePoller.unreadable(db, e) }

  private def poll: IO[Unit] = waiting.get.flatMap { w =>
    if (w.isEmpty) IO.unit
    else amount.flatMap { now =>
      val at = System.nanoTime()
      val shown = now.getOrElse(Long.MinValue)
      waiting.modify { w =>
        val (done, rest) = w.partition(_._1 <= shown)
        (rest, done)
      }.flatMap(_.traverse_(_._2.complete(at)))
    }
  }

  /** Runs for as long as the run does. */
  def loop: IO[Nothing] = (poll >> IO.sleep(20.millis)).foreverM
}

private[latency] object BalancePoller {
  /** Whether the account exists (`--account` names an account the bank must have), waiting up to `timeout`: the handler
    * publishes a batch on Kafka before its database commit completes (two-phase, see HandlerLoop), so an account just
    * confirmed on `command_feedback` can be a moment from visible in PostgreSQL.
    */
  def resource(db: DatabaseSettings, iban: String, timeout: FiniteDuration): Resource[IO, BalancePoller] =
    Database.session(db, "latency", timeout).evalMap { c =>
      for {
        expected <- Ref[IO].of(0L)
        waiting <- Ref[IO].of(List.empty[(Long, Deferred[IO, Long])])
        poller = new BalancePoller(db, c, iban, expected, waiting)
        appears = poller.amount.flatTap(a => IO.sleep(20.millis).whenA(a.isEmpty)).iterateUntil(_.isDefined)
        start <- appears.timeoutTo(timeout, poller.amount).flatMap(
          IO.fromOption(_)(Failure.BadInput(s"account $iban is not in the balance table of ${Secrets.maskUrl(db.url.value)}")))
        _ <- expected.set(start)
      } yield poller
    }

  private def unreadable(db: DatabaseSettings, e: SQLException): Failure =
    if (e.getSQLState != null && e.getSQLState.startsWith("42")) // undefined table or column: not the bank's database
      Failure.BadInput(
        s"${Secrets.maskUrl(db.url.value)} has no balance table with iban and amount " +
          s"(${e.getMessage.linesIterator.next()}): is it the bank's database?")
    else Database.unreachable(db, e)
}

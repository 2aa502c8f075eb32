package bankops.jobs.handler

import java.util.UUID
import java.util.concurrent.{ExecutorService, Future}
import scala.util.control.NonFatal

/** COMMIT PREPARED of a published batch, on a connection and a thread of its own: the next batch is polled, begun
  * and read meanwhile, instead of after one more database round trip and WAL flush. That is safe because the prepared
  * batch still holds its rows: a later batch touching them waits for this commit as for any other transaction's
  * locks, and one needing an account the batch created waits for the batch ([[LedgerDb.known]]). What a row lock
  * cannot cover is a repeated command id (its outcome row is not visible yet): a batch holding an id of the batch in
  * flight waits for the commit first ([[beforeReading]]).
  *
  * One commit in flight at a time. One that fails leaves the batch prepared, and `failed` has recovery settle it by
  * its marker before the next batch, as after a crash. Every call but the commit itself is on the loop's thread.
  */
private[handler] final class Committer(ledger: Replaceable[LedgerDb], executor: ExecutorService, fault: String => Unit,
                                       failed: (String, Throwable) => Unit) {
  private var inFlight: Option[(Future[_], Set[UUID])] = None
  // The last batch whose COMMIT PREPARED failed, until recovery has run since: said if the handler stops before that.
  @volatile private var failedGid: Option[String] = None

  /** A batch published by Kafka whose commit failed and that no recovery has settled since, if any. */
  def unsettled: Option[String] = failedGid

  /** Recovery ran to the end: every batch of the group prepared before it is settled. */
  def settled(): Unit = failedGid = None

  /** Commits `gid` (whose batch holds the command `ids`) once the previous commit is done. */
  def submit(gid: String, ids: Set[UUID]): Unit = {
    awaitDone()
    inFlight = Some(executor.submit((() => commit(gid)): Runnable) -> ids)
  }

  /** Before a batch with these command ids reads the database. */
  def beforeReading(ids: Set[UUID]): Unit = if (inFlight.exists(_._2.exists(ids))) awaitDone()

  /** Waits for the commit in flight, if any (it never throws: a failure is reported through `failed`). */
  def awaitDone(): Unit = inFlight.foreach { case (f, _) => inFlight = None; f.get(); () }

  private def commit(gid: String): Unit =
    try {
      fault("before-commit-prepared")
      PreparedBatches.finish(ledger.get(), gid, commit = true)
    } catch {
      case NonFatal(e) =>
        ledger.drop()
        failedGid = Some(gid)
        failed(gid, e)
    }
}

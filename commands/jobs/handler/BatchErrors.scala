package bankops.jobs.handler

// Why a batch is undone and redone: each a kind of its own, so the loop decides by type, never by message.

/** A wait cut short because the handler was asked to stop (SIGTERM): the batch is undone like any failed one. */
private[handler] final class HandlerStopping extends RuntimeException("the handler is stopping") with scala.util.control.NoStackTrace

/** A number drawn for a new account was created by another batch after this one checked it (that batch was prepared or
  * in flight, so invisible): the batch is undone and redone, drawing new numbers.
  */
private[handler] final class IbanTaken(iban: String)
    extends RuntimeException(s"account number $iban, drawn for a new account, was created meanwhile by another batch: the batch is redone " +
      "with new numbers") with scala.util.control.NoStackTrace

/** A batch's database work outlived [[LedgerDb.BatchBudget]]: it is undone and retried before its Kafka transaction
  * times out.
  */
private[handler] final class BatchOverBudget
    extends RuntimeException(s"the batch's database work took over ${LedgerDb.BatchBudget.toSeconds} s (its Kafka transaction would " +
      "time out): undone, and retried") with scala.util.control.NoStackTrace

/** A command id of the batch was applied meanwhile by another batch (the other kind under the same id, or the same
  * command on another partition or by a dropped member): the batch is redone, and that id gets the outcome it had.
  */
private[handler] final class CommandApplied(id: String)
    extends RuntimeException(s"command id $id was applied meanwhile by another batch: the batch is redone and answers it as that one did")
    with scala.util.control.NoStackTrace

/** A transaction that may hold what this batch needs was not over in time (its handler may have died): the batch is
  * undone and retried after recovery.
  */
private[handler] final class PreparedBatchPending(message: String) extends RuntimeException(message)

private[handler] object PreparedBatchPending {
  def account(ibans: Set[String]) =
    new PreparedBatchPending(s"waited ${LedgerDb.PreparedWait.toSeconds} s for a transaction creating one of the accounts " +
      s"${ibans.toList.sorted.take(5).mkString(", ")}${if (ibans.size > 5) ", ..." else ""} (a prepared batch whose handler may have died)")
  def settling(gid: String) = new PreparedBatchPending(s"waited ${LedgerDb.PreparedWait.toSeconds} s for prepared batch $gid to be settled")
  def undecided(gid: String) = new PreparedBatchPending(s"Kafka has not decided prepared batch $gid yet (its transaction is still open)")
}

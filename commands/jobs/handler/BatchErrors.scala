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
  def settling(gid: String) = new PreparedBatchPending(s"waited ${LedgerDb.PreparedWait.toSeconds} s for prepared batch $gid to be settled")
  def undecided(gid: String) = new PreparedBatchPending(s"Kafka has not decided prepared batch $gid yet (its transaction is still open)")
}

/** Accounts a batch needs are held by a transaction that did not end within the lock wait: a prepared transaction that
  * nobody settles (another deployment's, or one a person left), or a writer that stalls. Each with the prepared
  * transaction's id when it is one. The loop holds back the partitions whose commands name them, and goes on with
  * the others.
  */
private[handler] final case class AccountsHeld(held: Map[String, Option[String]])
    extends RuntimeException(AccountsHeld.describe(held)) with scala.util.control.NoStackTrace

private[handler] object AccountsHeld {
  def describe(held: Map[String, Option[String]]): String =
    if (held.isEmpty) s"the batch's accounts were held for ${LedgerDb.PreparedWait.toSeconds} s, and free again when looked at"
    else
      s"accounts held for over ${LedgerDb.PreparedWait.toSeconds} s: " + held.toList.sorted.take(5).map {
        case (iban, Some(gid)) => s"$iban by prepared transaction $gid"
        case (iban, None) => s"$iban by a transaction that is not prepared (or creating it)"
      }.mkString(", ") + (if (held.size > 5) s" and ${held.size - 5} more" else "")
}

/** Command ids `cid` holds without an outcome in `cac` or `cmt`: applied once, their outcomes purged since. Redoing
  * the batch would meet them in `cid` again, for ever; the loop dead-letters their records from now on instead.
  */
private[handler] final class CommandsPurged(val ids: Set[java.util.UUID])
    extends RuntimeException(s"command ids applied before whose outcomes were purged from cac and cmt: ${ids.toList.map(_.toString).sorted.take(3)
        .mkString(", ")}${if (ids.size > 3) ", ..." else ""}: dead-lettered from now on") with scala.util.control.NoStackTrace

private[handler] object CommandsPurged {
  def reason(id: java.util.UUID): String =
    s"command id $id was applied before and its outcome has been purged from cac/cmt (cid keeps the id): it cannot be answered again"
}

package bankops.jobs.handler

import org.apache.kafka.clients.producer.KafkaProducer

import java.sql.SQLException

/** Settles prepared batches: this handler's own once Kafka committed it, and by their markers ([[KafkaOutcome]]) those
  * a crash or a failure left, by this handler, one that died, or a live peer's mid-commit (which is waited for). Every
  * handler of the group settles any it finds, and they all agree: the marker alone decides.
  */
final class PreparedBatches(names: HandlerNames, parts: HandlerParts, producer: Replaceable[KafkaProducer[Array[Byte], Array[Byte]]],
                            db: Replaceable[LedgerDb]) {
  import parts.{fault, log, outcomes, stopping}

  private val feedbackTopic = parts.outputs.feedbackTopic
  /** Prepared transaction ids: `bankops-handler:<hash of group, topic and feedback topic>:<partition>@<offset>:<batch>`
    * of the marker, within PostgreSQL's 200 bytes.
    */
  val gidPrefix: String = s"${LedgerDb.GidRoot}${HandlerLoop.hash(s"${names.group}\u0000${names.topic}\u0000$feedbackTopic")}:"
  @volatile private var required = true

  /** Whether recovery runs before the next batch. */
  def needed: Boolean = required

  /** The id naming a batch's marker: `PREFIX PARTITION@OFFSET:BATCH`. */
  def gid(m: Marker): String = s"$gidPrefix${m.partition}@${m.offset}${m.batch.fold("")(b => s":$b")}"

  /** Recovery runs before the next batch (after a failure, or when partitions moved). */
  def require(): Unit = required = true

  /** Settles the prepared batches left by handlers of this group. Our own producer is made first: its
    * `initTransactions` ends a transaction our previous producer left open, so our own batches are decided at once.
    * Throws when one is still undecided.
    */
  def recoverIfNeeded(): Unit = if (required) {
    producer.get()
    val (ours, others) = db.get().prepared(LedgerDb.GidRoot).partition(_.startsWith(gidPrefix))
    reportOthers(others)
    val undecided = ours.filterNot(settle)
    if (undecided.nonEmpty) throw PreparedBatchPending.undecided(undecided.head)
    required = false
  }

  private var reported = Set.empty[String]

  /** Other handlers' prepared batches (another group's, another deployment's on the same database, an older format's)
    * are theirs to settle: never waited for, said once each, since they hold their rows and keep vacuum back.
    */
  private def reportOthers(gids: Vector[String]): Unit = {
    gids.filterNot(reported).foreach { gid =>
      log(s"warning: prepared transaction $gid in this database is not this group's: left alone, never waited for (its rows stay " +
        "locked and vacuum waits until its own handler settles it, or a person does with COMMIT PREPARED or ROLLBACK PREPARED)")
    }
    reported = gids.toSet
  }

  /** True when the batch is settled (or can never be by us). */
  private def settle(gid: String): Boolean = HandlerLoop.parseGid(gidPrefix, gid) match {
    case None =>
      log(s"warning: prepared transaction $gid names no feedback record (an older bankops handler made it): settle it by hand " +
        "(COMMIT PREPARED if its batch's feedback is on Kafka, else ROLLBACK PREPARED)")
      true
    case Some(marker) =>
      val at = s"$feedbackTopic-${marker.partition}@${marker.offset}"
      val first = outcomes.of(marker, java.time.Duration.ofMillis(200), stopping)
      val outcome = if (first != Outcome.Open) first
      else {
        log(s"handler: the batch marked by $at is still open on Kafka (a handler mid-commit, or one that died until its transaction " +
          s"times out): waiting up to ${HandlerLoop.OutcomeWait.toSeconds} s for its outcome")
        outcomes.of(marker, HandlerLoop.OutcomeWait, stopping)
      }
      outcome match {
        case Outcome.Open =>
          log(s"handler: the batch marked by $at is still undecided on Kafka: asked again before the next batch")
          false
        case Outcome.Unknowable(reason) =>
          log(s"error: prepared transaction $gid cannot be settled: $reason; settle it by hand (COMMIT PREPARED if its batch's feedback is on Kafka)")
          true
        case decided =>
          val commit = decided == Outcome.Committed
          fault("during-recovery")
          finish(gid, commit)
          log(
            s"handler: recovered the batch marked by $at: " +
              s"${if (commit) "published by Kafka, committed" else "not published, rolled back (it is read again)"}")
          true
      }
  }

  def finish(gid: String, commit: Boolean): Unit = PreparedBatches.finish(db.get(), gid, commit)
}

object PreparedBatches {
  /** COMMIT or ROLLBACK PREPARED on `ledger`; done all the same when another session settled it first (by the same final
    * outcome): a peer's or our own recovery, or this handler's [[Committer]].
    */
  def finish(ledger: LedgerDb, gid: String, commit: Boolean): Unit =
    try { if (commit) ledger.commitPrepared(gid) else ledger.rollbackPrepared(gid) }
    catch {
      case e: SQLException if e.getSQLState == "42704" => () // settled meanwhile
      case e: SQLException if e.getSQLState == "55000" => ledger.awaitSettled(Set(gid)) // being settled by another session right now
    }
}

package bankops.jobs.handler

import org.apache.kafka.clients.consumer.{ConsumerRebalanceListener, ConsumerRecord, KafkaConsumer, OffsetAndMetadata}
import org.apache.kafka.clients.producer.{KafkaProducer, RecordMetadata}
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.errors.{AuthenticationException, AuthorizationException, FencedInstanceIdException, ProducerFencedException}

import java.sql.SQLException
import java.util.UUID
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import bankops.services.bank.BankRules
import bankops.base.Failure

/** One batch at a time, exactly once: a poll's commands are applied in one PostgreSQL transaction; their feedback and
  * balance changes, the records it cannot read (to the dead-letter topic) and the consumed offsets go out in one Kafka
  * transaction. Once one of the batch's feedback records is acknowledged, the database transaction is PREPAREd
  * (durable, locks held) under an id naming that record, the [[Marker]]; only after Kafka committed does the database
  * commit. A crash in between leaves a prepared transaction that [[recoverIfNeeded]] settles by the marker, read as any
  * read_committed consumer reads it ([[KafkaOutcome]]): there, committed (COMMIT PREPARED); skipped, aborted (ROLLBACK
  * PREPARED, and the batch is read again); still open, it waits, never guesses. Because the locks are held until both
  * commits, every account's balance changes reach Kafka in the order the database applied them, even with several
  * handlers in one group. All Kafka and database calls run on one blocking thread at a time.
  */
final class HandlerLoop(
    group: String,
    topic: String,
    consumer: KafkaConsumer[Array[Byte], Array[Byte]],
    outcomes: KafkaOutcome,
    newProducer: () => KafkaProducer[Array[Byte], Array[Byte]],
    connect: () => LedgerDb,
    decoder: CommandDecoder,
    outputs: Outputs,
    val stats: HandlerStats,
    log: String => Unit,
    fault: String => Unit = _ => (),
    stopping: () => Boolean = () => false
) {
  type Raw = ConsumerRecord[Array[Byte], Array[Byte]]

  private val random = new java.security.SecureRandom()
  /** Prepared transaction ids: `bankops-handler:<hash of group, topic and feedback topic>:<partition>@<offset>` of the
    * marker, within PostgreSQL's 200 bytes.
    */
  val gidPrefix: String = s"${LedgerDb.GidRoot}${HandlerLoop.hash(s"$group\u0000$topic\u0000${outputs.feedbackTopic}")}:"
  private var producer: Option[KafkaProducer[Array[Byte], Array[Byte]]] = None
  /** Sends a batch's offsets to its transaction while the database works (their two round trips cost as much as it). */
  private val offsetSender = java.util.concurrent.Executors.newSingleThreadExecutor { (r: Runnable) =>
    val t = new Thread(r, "handler-offsets"); t.setDaemon(true); t
  }
  private var db: Option[LedgerDb] = None
  @volatile private var needsRecovery = true

  private def producerNow = producer.getOrElse { val p = newProducer(); p.initTransactions(); producer = Some(p); p }
  private def dbNow = db.getOrElse { val d = connect(); db = Some(d); d }

  /** Prepared batches of this group's handlers only become locks once partitions move: settle them on every assignment.
    * One that cannot be settled yet is tried again before the next batch.
    */
  val listener: ConsumerRebalanceListener = new ConsumerRebalanceListener {
    def onPartitionsRevoked(partitions: java.util.Collection[TopicPartition]): Unit = ()
    def onPartitionsAssigned(partitions: java.util.Collection[TopicPartition]): Unit = {
      needsRecovery = true
      try recoverIfNeeded() catch {
        case _: HandlerStopping => ()
        case NonFatal(e) => log(s"handler: recovery waits: ${HandlerLoop.describe(e)}")
      }
    }
  }

  def start(): Unit = {
    val (missing, database) = dbNow.missingTables
    if (missing.nonEmpty) throw Failure.BadInput(
      s"database $database has no table ${missing.mkString(", ")}: the handler needs the bank's tables balance, cac and cmt " +
        "(balancedb, as `bankops sandbox up` creates it; --db-url names the database)")
    if (dbNow.maxPreparedTransactions <= 0) throw Failure.BadInput(
      "PostgreSQL has max_prepared_transactions = 0: the handler commits each batch in two phases (PREPARE TRANSACTION) " +
        "so a crash never separates the database from Kafka; set max_prepared_transactions (e.g. 20) and restart PostgreSQL")
    recoverIfNeeded()
    consumer.subscribe(List(topic).asJava, listener)
  }

  /** Settles the prepared batches left by handlers of this group (this one, one that died, or a live peer's mid-commit,
    * which is waited for). Our own producer is made first: its `initTransactions` ends a transaction our previous
    * producer left open, so our own batches are decided at once. Throws when one is still undecided.
    */
  def recoverIfNeeded(): Unit = if (needsRecovery) {
    producerNow
    val undecided = dbNow.prepared(gidPrefix).filterNot(settle)
    if (undecided.nonEmpty) throw PreparedBatchPending.undecided(undecided.head)
    needsRecovery = false
  }

  /** True when the batch is settled (or can never be by us). */
  private def settle(gid: String): Boolean = HandlerLoop.parseGid(gidPrefix, gid) match {
    case None =>
      log(s"warning: prepared transaction $gid names no feedback record (an older bankops handler made it): settle it by hand " +
        "(COMMIT PREPARED if its batch's feedback is on Kafka, else ROLLBACK PREPARED)")
      true
    case Some(marker) =>
      val at = s"${outputs.feedbackTopic}-${marker.partition}@${marker.offset}"
      val first = outcomes.of(marker, java.time.Duration.ofMillis(200), stopping)
      val outcome = if (first != Outcome.Open) first else {
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
          log(s"handler: recovered the batch marked by $at: ${if (commit) "published by Kafka, committed" else "not published, rolled back (it is read again)"}")
          true
      }
  }

  /** COMMIT or ROLLBACK PREPARED; done all the same when another handler settled it first (by the same final outcome). */
  private def finish(gid: String, commit: Boolean): Unit =
    try { if (commit) dbNow.commitPrepared(gid) else dbNow.rollbackPrepared(gid) }
    catch {
      case e: SQLException if e.getSQLState == "42704" => () // settled meanwhile
      case e: SQLException if e.getSQLState == "55000" => dbNow.awaitSettled(Set(gid)) // being settled by another session right now
    }

  /** One poll and its batch; false when the poll was empty. */
  def step(): Option[Vector[Raw]] = {
    recoverIfNeeded()
    val polled = consumer.poll(java.time.Duration.ofMillis(200))
    if (polled.isEmpty) None else Some(polled.asScala.toVector)
  }

  /** Applies a polled batch exactly once; on failure everything is undone and the consumer rewound to the batch. */
  def apply(records: Vector[Raw]): Unit = {
    try recoverIfNeeded() catch { case NonFatal(e) => rewind(records); throw e }
    val decoded = records.map(r => r -> decoder.decode(r.value))
    val poison = decoded.collect { case (r, Left(reason)) => r -> reason }
    val commands = decoded.collect { case (r, Right(c)) => (r, c) }
    val offsets = records.groupBy(r => new TopicPartition(r.topic, r.partition)).map { case (tp, rs) => tp -> new OffsetAndMetadata(rs.map(_.offset).max + 1) }
    val p = producerNow
    var prepared: Option[String] = None
    var applied: Option[Applied] = None
    val t0 = System.nanoTime()
    var (t1, t2, t3, t4) = (t0, t0, t0, t0)
    var offsetsSent: Option[java.util.concurrent.Future[Unit]] = None
    try {
      p.beginTransaction()
      // The consumer is not thread-safe: its group metadata is read here, the offsets sent from the other thread.
      val metadata = consumer.groupMetadata()
      offsetsSent = Some(offsetSender.submit(() => p.sendOffsetsToTransaction(offsets.asJava, metadata)))
      val now = java.time.Instant.now()
      poison.foreach { case (r, reason) => p.send(outputs.deadLetter(r, reason, now)) }
      applied = if (commands.isEmpty) None else Some(applyToDb(commands.map(_._2)))
      t1 = System.nanoTime()
      var marker: Option[java.util.concurrent.Future[RecordMetadata]] = None
      applied.foreach(_.emitted.foreach { e =>
        val sent = p.send(outputs.record(e))
        if (Outputs.isFeedback(e)) marker = Some(sent)
      })
      // The rows are written while the records go out: the sends need the ledger's result, not its rows.
      val w = System.nanoTime()
      applied.foreach(dbNow.write)
      dbSplit = (dbSplit._1, System.nanoTime() - w)
      try offsetsSent.foreach(_.get()) catch { case e: java.util.concurrent.ExecutionException => throw e.getCause }
      t2 = System.nanoTime()
      applied match {
        case Some(a) if a.writes =>
          // Every command that writes has feedback: the batch's last feedback record, acknowledged, names the batch.
          val m = try marker.get.get() catch { case e: java.util.concurrent.ExecutionException => throw e.getCause }
          fault("before-prepare")
          val gid = s"$gidPrefix${m.partition}@${m.offset}"
          dbNow.prepare(gid)
          prepared = Some(gid)
          fault("after-prepare")
        case Some(_) => dbNow.rollback() // repeated commands only: nothing to keep, locks released
        case None => ()
      }
      t3 = System.nanoTime()
      if (prepared.isDefined) fault("before-kafka-commit")
      p.commitTransaction()
      if (prepared.isDefined) fault("after-kafka-commit")
      t4 = System.nanoTime()
    } catch {
      case NonFatal(e) =>
        // The transaction is ended below: the offsets' requests must be over first.
        offsetsSent.foreach(f => scala.util.Try(f.get()))
        prepared match {
          case None =>
            db.foreach(d => scala.util.Try(d.rollback()))
            if (scala.util.Try(p.abortTransaction()).isFailure) replaceProducer()
          case Some(_) =>
            // The commit's outcome is unknown: a new producer with the same transactional.id ends the transaction
            // (recovery makes it first), and recovery settles the prepared batch by its marker.
            replaceProducer()
            needsRecovery = true
        }
        rewind(records)
        throw e
    }
    prepared.foreach { gid =>
      try finish(gid, commit = true)
      catch { case NonFatal(e) => needsRecovery = true; dropDb(); log(s"handler: batch published, its database commit is pending (${HandlerLoop.describe(e)}): retried") }
    }
    stats.timed(BatchTimings.of(records.size, t0, t1, t2, t3, t4, System.nanoTime()).copy(reads = dbSplit._1, writes = dbSplit._2))
    dbSplit = (0L, 0L)
    poison.foreach { case (r, reason) => log(s"warning: dead-lettered ${r.topic}-${r.partition}@${r.offset} to ${outputs.deadLetterTopic}: $reason") }
    applied.foreach(a => stats.add(a.counts))
    stats.deadLettered(poison.size)
    ()
  }


  /** The last batch's database reads (earlier outcomes, accounts, fresh numbers) and writes, in ns. */
  private var dbSplit = (0L, 0L)

  /** Reads what the batch needs and applies the bank's rules to it; the rows are written by the caller. */
  private def applyToDb(commands: Vector[Ledger.Command]): Applied = {
    val d = dbNow
    val ids = commands.map(_.fold(_.id, _.id)).toSet
    val a = System.nanoTime()
    // Numbers for the creations are drawn first, so the read that finds earlier outcomes also says which are taken.
    val drawn = commands.collect { case Left(c) => c.id -> draw() }
    val known0 = d.known(ids, Ledger.ibansOf(commands), drawn.map(_._2).toSet)
    val needed = drawn.filterNot { case (id, _) => known0.creations.contains(id) || known0.transfers.contains(id) }.distinctBy(_._1)
    val fresh = freshAccounts(d, needed, known0.taken, known0.accounts.keySet)
    dbSplit = (System.nanoTime() - a, 0L)
    Ledger(commands, known0, fresh)
  }

  private def draw(): String = BankRules.iban(random.nextInt(1000000000).toLong)

  /** An unused iban and a token per new account: the drawn numbers (`taken` those the table has), checked against
    * the accounts locked and one another, drawn again when taken (three rounds; then the original's failure reason).
    */
  private def freshAccounts(d: LedgerDb, first: Vector[(UUID, String)], taken0: Set[String], locked: Set[String]): Map[UUID, Option[(String, String)]] = {
    var result = Map.empty[UUID, Option[(String, String)]]
    var candidates = first
    var taken = taken0
    var used = locked
    var round = 0
    while (candidates.nonEmpty && round < 3) {
      if (round > 0) taken = d.taken(candidates.map(_._2).toSet)
      val dupes = candidates.groupBy(_._2).collect { case (iban, cs) if cs.size > 1 => iban }.toSet
      val (bad, good) = candidates.partition { case (_, iban) => taken(iban) || used(iban) || dupes(iban) }
      good.foreach { case (id, iban) => result += id -> Some((iban, BankRules.token(random))) }
      used ++= good.map(_._2)
      candidates = bad.map { case (id, _) => id -> draw() }
      round += 1
    }
    result ++ candidates.map(_._1 -> None)
  }

  def rewind(records: Vector[Raw]): Unit = {
    val assigned = consumer.assignment().asScala
    records.groupBy(r => new TopicPartition(r.topic, r.partition)).foreach { case (tp, rs) =>
      if (assigned(tp)) consumer.seek(tp, rs.map(_.offset).min)
    }
  }

  private def replaceProducer(): Unit = {
    producer.foreach(p => scala.util.Try(p.close(java.time.Duration.ofSeconds(5))))
    producer = None
  }

  private def dropDb(): Unit = { db.foreach(_.close()); db = None }

  /** After a failed batch: connections that may be broken are made anew on the next try. */
  def afterFailure(e: Throwable): Unit = {
    needsRecovery = true
    e match {
      case _: SQLException => dropDb()
      case _ => ()
    }
  }

  /** Total lag of the assigned partitions, from the consumer's last fetches (no request). */
  def lag: Long = consumer.assignment().asScala.toList.map(tp => consumer.currentLag(tp)).filter(_.isPresent).map(_.getAsLong).sum

  def close(): Unit = {
    offsetSender.shutdown()
    replaceProducer()
    dropDb()
  }
}

object HandlerLoop {
  def hash(s: String): String =
    java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes("UTF-8")).take(6).map("%02x".format(_)).mkString

  /** The marker a prepared transaction's id names; None for ids of another form (an older handler's). */
  def parseGid(prefix: String, gid: String): Option[Marker] =
    gid.stripPrefix(prefix).split('@') match {
      case Array(p, o) => for { pi <- p.toIntOption; oi <- o.toLongOption } yield Marker(pi, oi)
      case _ => None
    }

  /** How long recovery waits for an open transaction at a time: a handler's transactions time out after 10 s. */
  val OutcomeWait: java.time.Duration = java.time.Duration.ofSeconds(12)

  /** Errors no retry mends: another handler took our place, or Kafka refuses us. */
  def fatal(e: Throwable): Boolean = fenced(e) || Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists {
    case _: AuthenticationException | _: AuthorizationException | _: Failure => true
    case _ => false
  }

  /** Another process took this handler's transactional id or static member id. */
  def fenced(e: Throwable): Boolean = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists {
    case _: ProducerFencedException | _: FencedInstanceIdException => true
    case _ => false
  }

  /** The PostgreSQL advisory lock a handler with a stable name holds while it runs: a second one is refused at once,
    * and a crashed one's lock goes with its connection, so a restart under the same name is not.
    */
  def instanceKey(group: String, instance: String): Long =
    java.nio.ByteBuffer.wrap(java.security.MessageDigest.getInstance("SHA-256").digest(s"bankops-handler\u0000$group\u0000$instance".getBytes("UTF-8"))).getLong

  def describe(e: Throwable): String = {
    val root = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).toList.last
    s"${root.getClass.getSimpleName}: ${Option(root.getMessage).getOrElse("").linesIterator.nextOption().getOrElse("")}"
  }
}

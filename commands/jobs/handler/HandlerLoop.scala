package bankops.jobs.handler

import cats.effect.{IO, Resource, SyncIO}
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener
import org.apache.kafka.clients.producer.{KafkaProducer, RecordMetadata}
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.errors.{
  AuthenticationException, AuthorizationException, FencedInstanceIdException, InvalidProducerEpochException, ProducerFencedException
}

import java.sql.SQLException
import java.util.concurrent.{ExecutionException, ExecutorService, Executors, Future}
import scala.jdk.CollectionConverters._
import scala.util.Try
import scala.util.control.NonFatal

import bankops.base.{Failure, Failures}
import bankops.services.bank.BankTables
import HandlerLoop.{Producer, Read, Sent}

/** One batch at a time, exactly once: a poll's commands are applied in one PostgreSQL transaction; their feedback and
  * balance changes, the records it cannot read (to the dead-letter topic) and the consumed offsets go out in one Kafka
  * transaction. Once one of the batch's feedback records is acknowledged, the database transaction is PREPAREd
  * (durable, locks held) under an id naming that record, the [[Marker]]; only after Kafka committed does the database
  * commit. A crash in between leaves a prepared transaction that [[PreparedBatches]] settles by the marker, read as any
  * read_committed consumer reads it ([[KafkaOutcome]]): there, committed (COMMIT PREPARED); skipped, aborted (ROLLBACK
  * PREPARED, and the batch is read again); still open, it waits, never guesses. Because the locks are held until both
  * commits, every account's balance changes reach Kafka in the order the database applied them, even with several
  * handlers in one group. All Kafka and database calls run on one blocking thread at a time, but for two: the batch's
  * offsets are sent from `offsetSender` while that thread works on the database, and COMMIT PREPARED runs on the
  * [[Committer]]'s connection while the next batch begins.
  */
final class HandlerLoop private (names: HandlerNames, parts: HandlerParts, producer: Replaceable[Producer], db: Replaceable[LedgerDb],
                                 offsetSender: ExecutorService, committing: Replaceable[LedgerDb], committerThread: ExecutorService) {
  import parts.{consumer, decoder, fault, log, outputs}

  private val preparedBatches = new PreparedBatches(names, parts, producer, db)
  private val heldBack = new HeldBack(consumer, decoder, log)
  // Ids applied before whose outcomes were purged: bounded, as only a person purging rows and replaying fills it.
  private val purged = java.util.Collections.newSetFromMap(new java.util.LinkedHashMap[java.util.UUID, java.lang.Boolean](16, 0.75f, false) {
    override def removeEldestEntry(e: java.util.Map.Entry[java.util.UUID, java.lang.Boolean]): Boolean = size > 100000
  })
  private val ledger = new LedgerReads(parts.draws)
  private val committer = new Committer(committing, committerThread, fault,
    (gid, e) => {
      preparedBatches.require()
      log(s"handler: batch published, its database commit is pending (${HandlerLoop.describe(e)}): settled by its marker before the next batch " +
        s"($gid)")
    })

  def stats: HandlerStats = parts.stats

  /** Prepared batches of this group's handlers only become locks once partitions move: settle them on every assignment.
    * One that cannot be settled yet is tried again before the next batch.
    */
  val listener: ConsumerRebalanceListener = new ConsumerRebalanceListener {
    // Said as they move: which handler holds which partitions is what an operator asks first when one stops answering.
    def onPartitionsRevoked(partitions: java.util.Collection[TopicPartition]): Unit = {
      heldBack.revoked(partitions.asScala)
      if (!partitions.isEmpty) log(s"handler: gave up ${HandlerLoop.partitionList(partitions.asScala)}")
    }
    def onPartitionsAssigned(partitions: java.util.Collection[TopicPartition]): Unit = {
      log(s"handler: holds ${HandlerLoop.partitionList(consumer.assignment().asScala)}")
      preparedBatches.require()
      try recover()
      catch {
        case _: HandlerStopping => ()
        case NonFatal(e) => log(s"handler: recovery waits: ${HandlerLoop.describe(e)}")
      }
    }
  }

  def start(): Unit = {
    val (missing, database) = db.get().missingTables
    if (missing.nonEmpty) throw Failure.BadInput(
      s"database $database has no table ${missing.mkString(", ")}: the handler needs the bank's tables balance, cac, cmt and cid " +
        "(balancedb, as `bankops sandbox up` creates it; --db-url names the database)")
    db.get().uniqueIbans.left.foreach { duplicates =>
      throw Failure.BadInput(
        s"table balance in database $database has no unique index on iban, so two accounts could get one number: `bankops sandbox up` " +
          "adds it, or CREATE UNIQUE INDEX balance_iban_key ON balance (iban)" +
          (if (duplicates.isEmpty) "" else s"; first leave each of these to one account: ${BankTables.duplicatesLine(duplicates)}"))
    }
    if (db.get().maxPreparedTransactions <= 0) throw Failure.BadInput(
      "PostgreSQL has max_prepared_transactions = 0: the handler commits each batch in two phases (PREPARE TRANSACTION) " +
        "so a crash never separates the database from Kafka; set max_prepared_transactions (e.g. 20) and restart PostgreSQL")
    awaitDecided()
    consumer.subscribe(List(names.topic).asJava, listener)
  }

  /** At start, prepared batches Kafka has not decided yet (a dead handler's open transaction, until it times out) are
    * waited for, a line each round, rather than given up on: the batches after them may need their rows.
    */
  @scala.annotation.tailrec
  private def awaitDecided(): Unit = {
    val pending =
      try { preparedBatches.recoverIfNeeded(); None }
      catch { case e: PreparedBatchPending => Some(e) }
    pending match {
      case None => ()
      case Some(e) =>
        if (parts.stopping()) throw new HandlerStopping
        log(s"handler: waiting to start: ${e.getMessage}")
        awaitDecided()
    }
  }

  /** One poll; None when it was empty. */
  def step(): Option[Vector[Batch.Raw]] = {
    recover()
    if (!heldBack.isEmpty) heldBack.lookAgain(db.get())
    val polled = consumer.poll(java.time.Duration.ofMillis(200))
    if (polled.isEmpty) None else Some(polled.asScala.toVector)
  }

  /** Applies a polled batch exactly once, step by step; on failure everything is undone and the consumer rewound to the
    * batch (see [[InFlight]]).
    */
  def apply(polled: Vector[Batch.Raw]): Unit = {
    val records = heldBack.going(polled)
    if (records.nonEmpty) applyGoing(records)
  }

  private def applyGoing(records: Vector[Batch.Raw]): Unit = {
    val batch = Batch(records, decoder, purged.contains)
    // A commit in flight that holds one of the batch's ids is awaited first: if it failed, recovery settles it before
    // the batch reads (its outcome rows are invisible while it is prepared).
    committer.beforeReading(batch.commands.map(_.fold(_.id, _.id)).toSet)
    try recover()
    catch { case NonFatal(e) => rewind(records); throw e }
    val p = producer.get()
    val t0 = System.nanoTime()
    if (batch.commands.nonEmpty) db.get().startBatch()
    val offsetsSent = new InFlight(records, p, None).step(None)(begin(p, batch))
    val inFlight = new InFlight(records, p, Some(offsetsSent))
    val read = inFlight.step(None)(readAndApply(p, batch))
    val t1 = System.nanoTime()
    val sent = inFlight.step(None)(send(p, read.applied, offsetsSent))
    val t2 = System.nanoTime()
    val gid = inFlight.step(None)(prepare(read.applied, sent.marker))
    inFlight.step(gid)(if (gid.isDefined) fault("after-prepare"))
    val t3 = System.nanoTime()
    inFlight.step(gid)(commitKafka(p, prepared = gid.isDefined))
    val t4 = System.nanoTime()
    // Handed over: the batch's time ends here; the commit's own shows as the next batch's wait for its rows, if any.
    gid.foreach(committer.submit(_, batch.commands.map(_.fold(_.id, _.id)).toSet))
    stats.timed(BatchTimings.of(records.size, t0, t1, t2, t3, t4, System.nanoTime(), reads = read.reads, writes = sent.writes))
    batch.poison.foreach { case (r, reason) =>
      log(s"warning: dead-lettered ${r.topic}-${r.partition}@${r.offset} to ${outputs.deadLetterTopic}: $reason")
    }
    read.applied.foreach(a => stats.add(a.counts))
    stats.deadLettered(batch.poison.size)
  }

  /** Begins the Kafka transaction and sends the batch's offsets to it from the other thread: their two round trips
    * cost as much as the database's work, which goes on meanwhile.
    */
  private def begin(p: Producer, batch: Batch): Future[Unit] = {
    p.beginTransaction()
    // The consumer is not thread-safe: its group metadata is read here, the offsets sent from the other thread.
    val metadata = consumer.groupMetadata()
    offsetSender.submit(() => p.sendOffsetsToTransaction(batch.offsets.asJava, metadata))
  }

  /** The dead letters go out; what the commands need is read (their accounts locked) and the bank's rules applied. */
  private def readAndApply(p: Producer, batch: Batch): Read = {
    val now = java.time.Instant.now()
    batch.poison.foreach { case (r, reason) => p.send(outputs.deadLetter(r, reason, now)) }
    if (batch.commands.isEmpty) Read(None, 0L)
    else { val (applied, reads) = ledger(db.get(), batch.commands); Read(Some(applied), reads) }
  }

  /** The feedback and balance changes go out, the rows are written meanwhile; done once the offsets are in the
    * transaction too.
    */
  private def send(p: Producer, applied: Option[Applied], offsetsSent: Future[Unit]): Sent = {
    val emitted = applied.toVector.flatMap(_.emitted)
    // The batch's last feedback record is its marker, and carries the batch's id (which the prepared transaction's names).
    val last = emitted.lastIndexWhere(Outputs.isFeedback)
    val batch = HandlerLoop.batchId()
    val sends = emitted.zipWithIndex.map { case (e, i) => p.send(outputs.record(e, Option.when(i == last)(batch))) }
    val marker = Option.when(last >= 0)(sends(last))
    val w = System.nanoTime()
    applied.foreach(db.get().write)
    val writes = System.nanoTime() - w
    awaited(offsetsSent)
    Sent(marker.map(_ -> batch), writes)
  }

  /** PREPAREs the database transaction under the id naming the batch's last feedback record, once Kafka acknowledged
    * it (every command that writes has feedback, so it names the batch); a batch of repeated commands only has nothing
    * to keep, and its locks are released. The prepared transaction's id, if any.
    */
  private def prepare(applied: Option[Applied], marker: Option[(Future[RecordMetadata], String)]): Option[String] = applied match {
    case Some(a) if a.writes =>
      val (sent, batch) = marker.get
      val m = awaited(sent)
      fault("before-prepare")
      val gid = preparedBatches.gid(Marker(m.partition, m.offset, Some(batch)))
      db.get().prepare(gid)
      Some(gid)
    case Some(_) => db.get().rollback(); None
    case None => None
  }

  private def commitKafka(p: Producer, prepared: Boolean): Unit = {
    if (prepared) fault("before-kafka-commit")
    p.commitTransaction()
    if (prepared) fault("after-kafka-commit")
  }

  /** Settles prepared batches when needed, once our own commit in flight is done (it may be among them). */
  private def recover(): Unit = if (preparedBatches.needed) {
    committer.awaitDone()
    preparedBatches.recoverIfNeeded()
    committer.settled()
  }

  /** Before the loop's clients are released: the commit in flight finishes first. A batch whose commit failed and that
    * recovery could not settle yet (the database away) stays prepared: said, with who settles it.
    */
  def close(): Unit = {
    committer.awaitDone()
    committer.unsettled.foreach { gid =>
      log(s"handler: stopping with the batch $gid prepared: Kafka published it, its database commit failed; any handler of group " +
        s"${names.group} commits it by its marker when it starts or its partitions move (until then its accounts stay locked)")
    }
  }

  private def awaited[A](f: Future[A]): A = try f.get()
  catch { case e: ExecutionException => throw e.getCause }

  /** A batch's two transactions in progress. A step that fails undoes them as far as they got, rewinds the consumer to
    * the batch and rethrows. Before PREPARE (`gid` None) nothing is kept: the database transaction is rolled back and
    * the Kafka one aborted (its producer replaced when even that fails). After it the commit's outcome is unknown: a new
    * producer with the same transactional.id ends the Kafka transaction (recovery makes it first), and recovery settles
    * the prepared batch by its marker.
    */
  private final class InFlight(records: Vector[Batch.Raw], p: Producer, offsetsSent: Option[Future[Unit]]) {
    def step[A](gid: Option[String])(body: => A): A =
      try body
      catch {
        case NonFatal(e) =>
          // The transaction is ended below: the offsets' requests must be over first.
          offsetsSent.foreach(f => Try(f.get()))
          gid match {
            case None =>
              db.current.foreach(d => Try(d.rollback()))
              if (Try(p.abortTransaction()).isFailure) producer.drop()
            case Some(_) =>
              producer.drop()
              preparedBatches.require()
          }
          rewind(records)
          throw e
      }
  }

  def rewind(records: Vector[Batch.Raw]): Unit = {
    val assigned = consumer.assignment().asScala
    records.groupBy(r => new TopicPartition(r.topic, r.partition)).foreach { case (tp, rs) =>
      if (assigned(tp)) consumer.seek(tp, rs.map(_.offset).min)
    }
  }

  /** After a failed batch: connections that may be broken are made anew on the next try; a producer whose transaction
    * the coordinator aborted is replaced (its epoch is spent).
    */
  def afterFailure(e: Throwable): Unit = {
    preparedBatches.require()
    e match {
      case _: SQLException => db.drop()
      case _ => ()
    }
    if (HandlerLoop.overrun(e)) producer.drop()
    e match {
      case AccountsHeld(held) => heldBack.add(held)
      case p: CommandsPurged => p.ids.foreach(purged.add)
      case _ => ()
    }
  }

  /** Total lag of the assigned partitions, from the consumer's last fetches (no request). */
  def lag: Long = consumer.assignment().asScala.toList.map(tp => consumer.currentLag(tp)).filter(_.isPresent).map(_.getAsLong).sum
}

object HandlerLoop {
  type Producer = KafkaProducer[Array[Byte], Array[Byte]]

  /** `partitions 0, 2 of commands` (sorted; `no partition` when empty), for the log. */
  def partitionList(ps: Iterable[TopicPartition]): String =
    if (ps.isEmpty) "no partition"
    else ps.groupBy(_.topic).toList.sortBy(_._1).map { case (t, tps) =>
      s"partition${if (tps.size > 1) "s" else ""} ${tps.map(_.partition).toList.sorted.mkString(", ")} of $t"
    }.mkString("; ")

  /** The loop with its clients: the producer and the database connection are replaced after failures; the offsets'
    * thread lives as long as the loop. Released in reverse: the thread, the producer, the connection.
    */
  def resource(names: HandlerNames, parts: HandlerParts, producer: Resource[SyncIO, Producer],
               database: Resource[SyncIO, LedgerDb]): Resource[IO, HandlerLoop] =
    for {
      db <- Replaceable.resource(database)
      committing <- Replaceable.resource(database)
      p <- Replaceable.resource(producer)
      offsets <- thread("handler-offsets")
      commits <- thread("handler-commits")
      loop <- Resource.make(IO(new HandlerLoop(names, parts, p, db, offsets, committing, commits)))(l => IO.blocking(l.close()))
    } yield loop

  private def thread(name: String): Resource[IO, ExecutorService] =
    Resource.make(IO(Executors.newSingleThreadExecutor { (r: Runnable) =>
      val t = new Thread(r, name); t.setDaemon(true); t
    }))(e => IO.blocking(e.shutdown()))

  /** What the read step found: the batch's ledger (None without commands), and its database reads' time (ns). */
  private final case class Read(applied: Option[Applied], reads: Long)
  /** What the send step sent: the batch's last feedback record as it will be acknowledged with the batch's id, and its
    * writes' time (ns).
    */
  private final case class Sent(marker: Option[(Future[RecordMetadata], String)], writes: Long)

  /** A batch's own id, on its marker record and in its prepared transaction's id: 16 hex digits, random. */
  def batchId(): String = f"${java.util.concurrent.ThreadLocalRandom.current().nextLong()}%016x"

  def hash(s: String): String =
    java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes("UTF-8")).take(6).map("%02x".format(_)).mkString

  private val GidMarker = """(\d+)@(\d+)(?::([0-9a-f]{16}))?""".r

  /** The marker a prepared transaction's id names (`PARTITION@OFFSET:BATCH`, or an older handler's `PARTITION@OFFSET`);
    * None for ids of another form.
    */
  def parseGid(prefix: String, gid: String): Option[Marker] =
    if (!gid.startsWith(prefix)) None
    else gid.stripPrefix(prefix) match {
      case GidMarker(p, o, batch) => for { pi <- p.toIntOption; oi <- o.toLongOption } yield Marker(pi, oi, Option(batch))
      case _ => None
    }

  /** How long recovery waits for an open transaction at a time: a handler's transactions time out after 10 s. */
  val OutcomeWait: java.time.Duration = java.time.Duration.ofSeconds(12)

  /** Errors no retry mends: another handler took our place, or Kafka refuses us. */
  def fatal(e: Throwable): Boolean = fenced(e) || Failures.chain(e).exists {
    case _: AuthenticationException | _: AuthorizationException | _: Failure => true
    case _ => false
  }

  /** Kafka fenced the producer's epoch. No other process can hold this handler's transactional id (GROUP-HOST-PID is
    * unique, and a stable `--instance` is held by its lock in the database), so it means the coordinator aborted a
    * transaction that outlived `transaction.timeout.ms` (a stalled host, a long pause) and bumped the epoch: a new
    * producer takes the id over and the batch is retried, [[OverrunRetries]] times in a row at most before the handler
    * stops as fenced. A consumer's fenced static member id is another process's, and always fatal.
    */
  def overrun(e: Throwable): Boolean = {
    val chain = Failures.chain(e)
    !chain.exists(_.isInstanceOf[FencedInstanceIdException]) && chain.exists {
      case _: ProducerFencedException | _: InvalidProducerEpochException => true
      case _ => false
    }
  }

  val OverrunRetries = 3

  /** Another process took this handler's transactional id or static member id. */
  def fenced(e: Throwable): Boolean = Failures.chain(e).exists {
    case _: ProducerFencedException | _: FencedInstanceIdException => true
    case _ => false
  }

  /** The PostgreSQL advisory lock a handler with a stable name holds while it runs: a second one is refused at once,
    * and a crashed one's lock goes with its connection, so a restart under the same name is not.
    */
  def instanceKey(group: String, instance: String): Long =
    java.nio.ByteBuffer.wrap(
      java.security.MessageDigest.getInstance("SHA-256").digest(s"bankops-handler\u0000$group\u0000$instance".getBytes("UTF-8"))).getLong

  def describe(e: Throwable): String = {
    val root = Failures.chain(e).last
    s"${root.getClass.getSimpleName}: ${Option(root.getMessage).getOrElse("").linesIterator.nextOption().getOrElse("")}"
  }
}

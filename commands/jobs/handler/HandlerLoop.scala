package bankops.jobs.handler

import org.apache.kafka.clients.admin.{Admin, ListConsumerGroupOffsetsOptions, ListConsumerGroupOffsetsSpec}
import org.apache.kafka.clients.consumer.{ConsumerRebalanceListener, ConsumerRecord, KafkaConsumer, OffsetAndMetadata}
import org.apache.kafka.clients.producer.KafkaProducer
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.errors.{AuthenticationException, AuthorizationException, ProducerFencedException}

import java.sql.SQLException
import java.util.UUID
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import bankops.services.bank.BankRules
import bankops.base.Failure

/** One batch at a time, exactly once: a poll's commands are applied in one PostgreSQL transaction that ends
  * PREPAREd (durable, locks held); their feedback and balance changes and the consumed offsets go out in one
  * Kafka transaction; only after Kafka committed does the database commit. A crash in between leaves a
  * prepared transaction named after the batch's last applied offset, and [[recover]] settles it by the group's
  * committed offset: committed past it, Kafka published the batch (COMMIT PREPARED); not, the batch will be
  * read again (ROLLBACK PREPARED). Because the locks are held until both commits, every account's balance
  * changes reach Kafka in the order the database applied them, even with several handlers in one group.
  * All Kafka and database calls run on one blocking thread at a time.
  */
final class HandlerLoop(
    group: String,
    topic: String,
    consumer: KafkaConsumer[Array[Byte], Array[Byte]],
    admin: Admin,
    newProducer: () => KafkaProducer[Array[Byte], Array[Byte]],
    connect: () => LedgerDb,
    decoder: CommandDecoder,
    outputs: Outputs,
    val stats: HandlerStats,
    log: String => Unit,
    fault: String => Unit = _ => (),
    debug: (=> String) => Unit = _ => ()
) {
  type Raw = ConsumerRecord[Array[Byte], Array[Byte]]

  private val random = new java.security.SecureRandom()
  /** Prepared transaction ids: `bankops-handler:<hash of group and topic>:<partition>:<offset>`, within PostgreSQL's 200 bytes. */
  val gidPrefix: String = s"bankops-handler:${HandlerLoop.hash(s"$group\u0000$topic")}:"
  private var producer: Option[KafkaProducer[Array[Byte], Array[Byte]]] = None
  /** Sends a batch's offsets to its transaction while the database works (their two round trips cost as much as it). */
  private val offsetSender = java.util.concurrent.Executors.newSingleThreadExecutor { (r: Runnable) =>
    val t = new Thread(r, "handler-offsets"); t.setDaemon(true); t
  }
  private var db: Option[LedgerDb] = None
  @volatile private var needsRecovery = true

  private def producerNow = producer.getOrElse { val p = newProducer(); p.initTransactions(); producer = Some(p); p }
  private def dbNow = db.getOrElse { val d = connect(); db = Some(d); d }

  /** Prepared batches of this group's handlers only become locks once partitions move: settle them on every assignment. */
  val listener: ConsumerRebalanceListener = new ConsumerRebalanceListener {
    def onPartitionsRevoked(partitions: java.util.Collection[TopicPartition]): Unit = ()
    def onPartitionsAssigned(partitions: java.util.Collection[TopicPartition]): Unit = { needsRecovery = true; recoverIfNeeded() }
  }

  def start(): Unit = {
    if (dbNow.maxPreparedTransactions <= 0) throw Failure.BadInput(
      "PostgreSQL has max_prepared_transactions = 0: the handler commits each batch in two phases (PREPARE TRANSACTION) " +
        "so a crash never separates the database from Kafka; set max_prepared_transactions (e.g. 20) and restart PostgreSQL")
    producerNow
    recoverIfNeeded()
    consumer.subscribe(List(topic).asJava, listener)
  }

  /** Settles prepared batches left by a handler of this group (this one or one that died). */
  def recoverIfNeeded(): Unit = if (needsRecovery) {
    val gids = dbNow.prepared(gidPrefix)
    if (gids.nonEmpty) {
      val parsed = gids.flatMap(g => HandlerLoop.parseGid(gidPrefix, g).map(g -> _))
      // require_stable: waits for a transaction still carrying offsets (a live handler mid-commit, or one that died
      // until its transaction times out), so the answer is final.
      val spec = new ListConsumerGroupOffsetsSpec().topicPartitions(parsed.map(p => new TopicPartition(topic, p._2._1)).distinct.asJava)
      val committed = admin.listConsumerGroupOffsets(Map(group -> spec).asJava, new ListConsumerGroupOffsetsOptions().requireStable(true))
        .partitionsToOffsetAndMetadata(group).get().asScala
      parsed.foreach { case (gid, (partition, offset)) =>
        val done = committed.get(new TopicPartition(topic, partition)).flatMap(Option(_)).exists(_.offset > offset)
        try {
          if (done) dbNow.commitPrepared(gid) else dbNow.rollbackPrepared(gid)
          log(s"handler: recovered the batch up to $topic-$partition@$offset: ${if (done) "published by Kafka, committed" else "not published, rolled back (it is read again)"}")
        } catch { case e: SQLException if e.getSQLState == "42704" => () } // settled meanwhile by the handler that prepared it
      }
    }
    needsRecovery = false
  }

  /** One poll and its batch; false when the poll was empty. */
  def step(): Option[Vector[Raw]] = {
    recoverIfNeeded()
    val polled = consumer.poll(java.time.Duration.ofMillis(200))
    if (polled.isEmpty) None else Some(polled.asScala.toVector)
  }

  /** Applies a polled batch exactly once; on failure everything is undone and the consumer rewound to the batch. */
  def apply(records: Vector[Raw]): Unit = {
    val decoded = records.map(r => r -> decoder.decode(r.value))
    decoded.foreach { case (r, d) => d.left.foreach(reason => log(s"warning: skipped ${r.topic}-${r.partition}@${r.offset}: $reason")) }
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
      applied = if (commands.isEmpty) None else Some(applyToDb(commands.map(_._2)))
      t1 = System.nanoTime()
      applied.foreach(_.emitted.foreach(e => p.send(outputs.record(e))))
      try offsetsSent.foreach(_.get()) catch { case e: java.util.concurrent.ExecutionException => throw e.getCause }
      t2 = System.nanoTime()
      applied match {
        case Some(a) if a.writes =>
          // Named after the last command that wrote: no later batch can commit past it without reading it again,
          // which waits on this transaction's locks, so "committed past it" means exactly "Kafka published this batch".
          val written = a.creations.map(_.id).toSet ++ a.transfers.map(_._1)
          val last = commands.filter { case (_, c) => written(c.fold(_.id, _.id)) }.map(_._1).last
          val gid = s"$gidPrefix${last.partition}:${last.offset}"
          dbNow.prepare(gid)
          prepared = Some(gid)
          fault("after-prepare")
        case Some(_) => dbNow.rollback() // repeated commands only: nothing to keep, locks released
        case None => ()
      }
      t3 = System.nanoTime()
      p.commitTransaction()
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
            // The commit's outcome is unknown: a new producer with the same transactional.id ends the transaction,
            // and recovery settles the prepared batch by the committed offsets.
            replaceProducer()
            needsRecovery = true
        }
        rewind(records)
        throw e
    }
    prepared.foreach { gid =>
      fault("after-kafka-commit")
      try dbNow.commitPrepared(gid)
      catch { case NonFatal(e) => needsRecovery = true; dropDb(); log(s"handler: batch published, its database commit is pending (${HandlerLoop.describe(e)}): retried") }
    }
    debug(f"handler: batch of ${records.size} records from ${offsets.size} partitions: database ${(t1 - t0) / 1e6}%.1f ms, " +
      f"sends and offsets ${(t2 - t1) / 1e6}%.1f ms, prepare ${(t3 - t2) / 1e6}%.1f ms, Kafka commit ${(t4 - t3) / 1e6}%.1f ms, " +
      f"commit prepared ${(System.nanoTime() - t4) / 1e6}%.1f ms")
    applied.foreach(a => stats.add(a.counts))
    stats.skip(records.size - commands.size)
    ()
  }


  private def applyToDb(commands: Vector[Ledger.Command]): Applied = {
    val d = dbNow
    val creationIds = commands.collect { case Left(c) => c.id }.toSet
    val transferIds = commands.collect { case Right(t) => t.id }.toSet
    val a = System.nanoTime()
    val known0 = d.known(creationIds, transferIds, Ledger.ibansOf(commands))
    val b = System.nanoTime()
    val fresh = freshAccounts(d, (creationIds -- known0.creations.keySet).toVector, known0.accounts.keySet)
    val c = System.nanoTime()
    val applied = Ledger(commands, known0, fresh)
    val e = System.nanoTime()
    d.write(applied)
    debug(f"known ${(b - a) / 1e6}%.1f fresh ${(c - b) / 1e6}%.1f ledger ${(e - c) / 1e6}%.1f write ${(System.nanoTime() - e) / 1e6}%.1f")
    applied
  }

  /** An unused iban and a token per new account: candidates are checked against the table and drawn again
    * when taken (three rounds; then the original's failure reason).
    */
  private def freshAccounts(d: LedgerDb, ids: Vector[UUID], locked: Set[String]): Map[UUID, Option[(String, String)]] = {
    def draw() = BankRules.iban(random.nextInt(1000000000).toLong)
    var result = Map.empty[UUID, Option[(String, String)]]
    var pending = ids
    var used = locked
    var round = 0
    while (pending.nonEmpty && round < 3) {
      val candidates = pending.map(_ -> draw())
      val taken = d.taken(candidates.map(_._2).toSet) ++ used
      val dupes = candidates.groupBy(_._2).collect { case (iban, cs) if cs.size > 1 => iban }.toSet
      val (bad, good) = candidates.partition { case (_, iban) => taken(iban) || dupes(iban) }
      good.foreach { case (id, iban) => result += id -> Some((iban, BankRules.token(random))) }
      used ++= good.map(_._2)
      pending = bad.map(_._1)
      round += 1
    }
    result ++ pending.map(_ -> None)
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

  def parseGid(prefix: String, gid: String): Option[(Int, Long)] =
    gid.stripPrefix(prefix).split(':') match {
      case Array(p, o) => for { pi <- p.toIntOption; oi <- o.toLongOption } yield (pi, oi)
      case _ => None
    }

  /** Errors no retry mends: another handler holds our transactional id, or Kafka refuses us. */
  def fatal(e: Throwable): Boolean = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).exists {
    case _: ProducerFencedException | _: AuthenticationException | _: AuthorizationException | _: Failure => true
    case _ => false
  }

  def describe(e: Throwable): String = {
    val root = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).toList.last
    s"${root.getClass.getSimpleName}: ${Option(root.getMessage).getOrElse("").linesIterator.nextOption().getOrElse("")}"
  }
}

package bankops.jobs.handler

import io.circe.Json

/** Where batches' time went, in nanoseconds, summed over `batches`: reading from the database and applying the rules,
  * sending (with the database writes meanwhile) and the offsets' round trips, the marker's acknowledgement and PREPARE,
  * Kafka's commit, COMMIT PREPARED; and the database reads (earlier outcomes, accounts locked, numbers for new
  * accounts) and writes within those.
  */
private[handler] final case class BatchTimings(batches: Long = 0, records: Long = 0, database: Long = 0, sends: Long = 0, prepare: Long = 0,
                                               kafkaCommit: Long = 0, commitPrepared: Long = 0, reads: Long = 0, writes: Long = 0) {
  private def zip(o: BatchTimings, f: (Long, Long) => Long) = BatchTimings(f(batches, o.batches), f(records, o.records), f(database, o.database),
    f(sends, o.sends), f(prepare, o.prepare), f(kafkaCommit, o.kafkaCommit), f(commitPrepared, o.commitPrepared), f(reads, o.reads),
    f(writes, o.writes))
  def +(o: BatchTimings): BatchTimings = zip(o, _ + _)
  /** All phases together: the batch's time from its first database read to COMMIT PREPARED. */
  def total: Long = database + sends + prepare + kafkaCommit + commitPrepared
  def -(o: BatchTimings): BatchTimings = zip(o, _ - _)

  /** For the status line: `; 12 batches of 3.5 records, ms each: database 1.2 (...)`; empty without batches. */
  def line: String = if (batches == 0) ""
  else {
    def ms(n: Long) = f"${n.toDouble / batches / 1e6}%.1f"
    f"; $batches batches of ${records.toDouble / batches}%.1f records, ms each: database ${ms(database)} (reads ${ms(reads)}), " +
      s"sends ${ms(sends)} (writes ${ms(writes)}), prepare ${ms(prepare)}, Kafka commit ${ms(kafkaCommit)}, commit prepared ${ms(commitPrepared)}"
  }

  /** One batch, for the status line: `; slowest batch 41.2 ms (32 records: database 3.1, ...)`; empty without one. */
  def slowestLine: String = if (batches == 0) ""
  else {
    def ms(n: Long) = f"${n.toDouble / 1e6}%.1f"
    s"; slowest batch ${ms(total)} ms ($records records: database ${ms(database)}, sends ${ms(sends)}, prepare ${ms(prepare)}, " +
      s"Kafka commit ${ms(kafkaCommit)}, commit prepared ${ms(commitPrepared)})"
  }

  /** Means per batch in ms, and the mean batch size. */
  def json: Json = {
    def ms(n: Long) = Json.fromDoubleOrNull(if (batches == 0) 0.0 else math.round(n.toDouble / batches / 1e4) / 100.0)
    Json.obj("batches" -> Json.fromLong(batches),
      "records" -> Json.fromDoubleOrNull(if (batches == 0) 0.0 else math.round(records.toDouble / batches * 10) / 10.0),
      "databaseMs" -> ms(database), "sendsMs" -> ms(sends), "prepareMs" -> ms(prepare), "kafkaCommitMs" -> ms(kafkaCommit),
      "commitPreparedMs" -> ms(commitPrepared), "databaseReadsMs" -> ms(reads), "databaseWritesMs" -> ms(writes))
  }
}

private[handler] object BatchTimings {
  /** One batch from its phase boundaries (System.nanoTime) and its database reads' and writes' times. */
  def of(records: Int, t0: Long, t1: Long, t2: Long, t3: Long, t4: Long, t5: Long, reads: Long, writes: Long): BatchTimings =
    BatchTimings(1, records.toLong, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, reads, writes)
}

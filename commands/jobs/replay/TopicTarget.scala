package bankops.jobs.replay

import cats.effect.IO
import cats.syntax.all._
import fs2.{Chunk, Stream}

import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Interrupt, Shell, StepSummary}
import bankops.services.config.ConnectionSettings
import bankops.services.kafka.{ChunkProducer, Doing, KafkaClients, ReadSpec, StartAt, StopAt, TopicReader}

/** Replay's topic target: sends with the idempotent producer, counts acknowledgements per target partition,
  * names the source offsets to resume from when deliveries fail, and with --verify reads the writes back.
  */
private[replay] object TopicTarget {

  def send(o: Delivery, topic: String, partitionCount: IO[Int], records: Stream[IO, Chunk[Outgoing]], target: ConnectionSettings, shell: Shell,
           check: Option[DryRunCheck] = None, file: Option[os.Path] = None): IO[ReplayOutcome] =
    if (o.dryRun) partitionCount >> records.evalTap(c => check.traverse_(_.observe(c.toList.map(_.value))))
      .map(_.size.toLong).compile.fold(0L)(_ + _).flatMap { n =>
        // What was checked, said plainly: a file's lines were each encoded against the target's subjects.
        val (checked, notes) = check.fold(("each line encoded against the target registry's subjects", List.empty[String]))(_.report)
        notes.traverse_(shell.warn) >> shell.info(s"replay: dry run: $n records read; $checked; nothing sent") >>
          StepSummary.write(shell,
            StepSummary("replay", s"dry run: $n records read; nothing sent to $topic", StepSummary.Outcome.Ok,
              facts = List("target topic" -> topic, "read" -> n.toString, "checked" -> checked)))
      }.as(ReplayOutcome(Exit.Ok, None))
    else for {
      started <- IO.monotonic
      interrupted <- IO.ref(false)
      // The first chunk awaits the partition count, which was asked for while the source opened; the summary awaits
      // it too, so a missing target fails even with no records.
      trackerOnce <- partitionCount.map(new DeliveryTracker(_, keepSent = o.verify)).memoize
      // A tenth of a second's records every tenth of a second; below 10 records/s, one record every 1/rate s.
      paced = o.rate.fold(records) { r =>
        val n = (r / 10) max 1; records.flatMap(Stream.chunk).chunkN(n).metered((n * 1000000000L / r).nanos)
      }
      firstError <- (Interrupt.onCtrlC, ChunkProducer.resource(target.kafka, o.timeout)).tupled.use { case (ctrlC, producer) =>
        // The producer's connection and metadata are made while the source is read, not at the first send.
        // Ctrl-C stops reading; what was handed to the producer is still awaited, so the counts are acknowledgements.
        val stop = ctrlC >> interrupted.set(true)
        producer.watched((trackerOnce >> producer.warmUp(List(topic))).background.surround(paced.interruptWhen(stop.attempt).evalMap { chunk =>
          trackerOnce.flatMap(tracker =>
            checkPartitions(o, topic, chunk, tracker.partitions) >> IO(tracker.reading(chunk)) >> send(o, topic, chunk,
              tracker, producer))
        }.parEvalMap(64)(identity).compile.drain)).flatMap(_ => IO(producer.firstError))
      }.adaptError(KafkaClients.denied(target.kafka, Doing.writing(List(topic)))).adaptError(KafkaClients.unreachable(target.kafka, o.timeout))
      tracker <- trackerOnce
      took <- IO.monotonic.map(_ - started)
      report <- interrupted.get.map(tracker.report(took, _))
      _ <- shell.info(report.summary(topic))
      verified <-
        if (o.verify && report.failed == 0 && !report.interrupted) verify(o, topic, tracker.landed, target, shell) else IO.pure(true)
      _ <- StepSummary.write(shell, report.stepSummary(topic, Option.when(o.verify && report.failed == 0)(verified), file))
      code <- report.resume(file) match {
        case Some(resume) if report.interrupted =>
          shell.info(s"replay: interrupted before everything due was read; $resume" +
            (if (resume.startsWith("resume with --from")) " (partitions not listed: where this run started)" else "")).as(Exit.Interrupted)
        case Some(resume) =>
          shell.info(s"replay: some records were not delivered${firstError.fold("")(e => s" (the first error: $e)")}; $resume")
            .as(Exit.Unavailable)
        case None => IO.pure(if (verified) Exit.Ok else Exit.Difference)
      }
    } yield ReplayOutcome(code, Some(report))

  /** --keep-partition onto a topic with fewer partitions than the source: said before anything of the chunk is sent. */
  private def checkPartitions(o: Delivery, topic: String, chunk: Chunk[Outgoing], partitions: Int): IO[Unit] =
    chunk.toList.find(r => o.keepPartition && r.sourcePartition >= partitions).traverse_(bad =>
      IO.raiseError(Failure.BadInput(s"--keep-partition: source partition ${bad.sourcePartition} does not exist on $topic ($partitions partitions)")))

  /** Hands the chunk to the producer; the inner effect once every record is answered, failing on the authorizer's refusal.
    * Without --verify one callback serves the chunk (the record's place is not kept).
    */
  private def send(o: Delivery, topic: String, chunk: Chunk[Outgoing], tracker: DeliveryTracker, producer: ChunkProducer): IO[IO[Unit]] = {
    val records = chunk.map(r => r.toRecord(topic, if (o.keepPartition) Some(r.sourcePartition) else None, o.keepTimestamps))
    val sending = tracker.sending(chunk)
    val handed =
      if (o.verify) producer.sendEach(records)((i, m, e) => sending.answered(i, m.partition, m.offset, e))
      else producer.send(records)((_, m, e) => sending.answered(0, m.partition, m.offset, e))
    handed.map(_ >> IO(sending.settle()) >> tracker.refused.traverse_(IO.raiseError))
  }

  /** Reads back exactly the offsets written and compares key, value and headers. */
  private def verify(o: Delivery, topic: String, sent: Map[(Int, Long), Outgoing], target: ConnectionSettings, shell: Shell): IO[Boolean] = {
    val starts = sent.keys.groupBy(_._1).map { case (p, ks) => new org.apache.kafka.common.TopicPartition(topic, p) -> ks.map(_._2).min }
    if (sent.isEmpty) IO.pure(true)
    else
      TopicReader.open(target.kafka, ReadSpec(List(topic), Some(starts.keys.map(_.partition).toList), StartAt.Offsets(starts), StopAt.End), o.timeout)
        .use { case (_, records) =>
          records.filter(r => sent.contains((r.partition, r.offset))).compile.fold((0L, 0L)) { case ((seen, bad), r) =>
            val ok = sent((r.partition, r.offset)).sameAs(r.key, r.value, r.headers.toArray.toList.map(h => h.key -> h.value))
            (seen + 1, if (ok) bad else bad + 1)
          }
        }.flatMap { case (seen, bad) =>
          val missing = sent.size - seen
          if (bad == 0 && missing == 0) shell.info(s"replay: verified $seen records on $topic, identical").as(true)
          else shell.info(s"replay: verification failed: $bad records differ, $missing missing").as(false)
        }
  }
}

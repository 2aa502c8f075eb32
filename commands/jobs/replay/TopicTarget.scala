package bankops.jobs.replay

import cats.effect.{IO, Ref}
import cats.syntax.all._
import fs2.{Chunk, Stream}

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.base.{Exit, Failure, Interrupt, Shell, StepSummary}
import bankops.services.config.ConnectionSettings
import bankops.services.kafka.{ChunkProducer, Denied, Doing, KafkaClients, ReadSpec, StartAt, StopAt, TopicReader}

/** Replay's topic target: sends with the idempotent producer, counts acknowledgements per target partition,
  * names the source offsets to resume from when deliveries fail, and with --verify reads the writes back.
  */
private[replay] object TopicTarget {

  def send(o: Delivery, topic: String, partitionCount: IO[Int], records: Stream[IO, Chunk[Outgoing]], target: ConnectionSettings, shell: Shell,
           check: Option[DryRunCheck] = None): IO[ReplayOutcome] =
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
      read <- Ref.of[IO, Long](0L)
      started <- IO.monotonic
      // Acknowledgements per target partition. The first chunk awaits the partition count, which was asked
      // for while the source opened; the summary awaits it too, so a missing target fails even with no records.
      ackedOnce <- partitionCount.map(n => Array.fill(n)(new AtomicLong())).memoize
      failedAt = new ConcurrentHashMap[Int, java.lang.Long]() // source partition -> first source offset not delivered
      sent = new ConcurrentHashMap[(Int, Long), Outgoing]()
      errors = new AtomicLong()
      // Per source partition, the offset after the last record read: where an interrupted run resumes.
      nextRead = new ConcurrentHashMap[Int, java.lang.Long]()
      interrupted = new java.util.concurrent.atomic.AtomicBoolean(false)
      // The authorizer's refusal of a send ends the run at once: every later record would be refused too.
      refusal = new java.util.concurrent.atomic.AtomicReference[Exception]()
      firstError = new java.util.concurrent.atomic.AtomicReference[Option[String]](None)
      // A tenth of a second's records every tenth of a second; below 10 records/s, one record every 1/rate s.
      paced = o.rate.fold(records) { r =>
        val n = (r / 10) max 1; records.flatMap(Stream.chunk).chunkN(n).metered((n * 1000000000L / r).nanos)
      }
      _ <- (Interrupt.onCtrlC, ChunkProducer.resource(target.kafka, o.timeout)).tupled.use { case (ctrlC, producer) =>
        // The producer's connection and metadata are made while the source is read, not at the first send.
        // Ctrl-C stops reading; what was handed to the producer is still awaited, so the counts are acknowledgements.
        val stop = ctrlC >> IO(interrupted.set(true))
        producer.watched((ackedOnce >> producer.warmUp(List(topic))).background.surround(paced.interruptWhen(stop.attempt).evalMap { chunk =>
          ackedOnce.flatMap { acked =>
            val bad = chunk.toList.find(r => o.keepPartition && r.sourcePartition >= acked.length)
            IO.raiseError(Failure.BadInput(
                s"--keep-partition: source partition ${bad.get.sourcePartition} does not exist on $topic (${acked.length} partitions)")).whenA(
              bad.isDefined) >>
              read.update(_ + chunk.size) >>
              IO(chunk.foreach(r =>
                  nextRead.merge(r.sourcePartition, r.sourceOffset + 1, (a, b) => java.lang.Long.valueOf(a.longValue max b.longValue)))) >> {
                val records = chunk.map(r => r.toRecord(topic, if (o.keepPartition) Some(r.sourcePartition) else None, o.keepTimestamps))
                val chunkFailed = new java.util.concurrent.atomic.AtomicBoolean(false)
                // Without --verify one callback serves the chunk: a failure marks the whole chunk for resuming.
                val sending =
                  if (o.verify) producer.sendEach(records) { (i, m, e) =>
                    if (e == null) { acked(m.partition).incrementAndGet(); sent.put((m.partition, m.offset), chunk(i)) }
                    else { chunkFailed.set(true); if (Denied.isRefusal(e)) refusal.compareAndSet(null, e) }
                  }
                  else producer.send(records) { (_, m, e) =>
                    if (e == null) acked(m.partition).incrementAndGet()
                    else { chunkFailed.set(true); if (Denied.isRefusal(e)) refusal.compareAndSet(null, e) }
                  }
                sending.map(_.flatMap(_ =>
                    IO {
                      if (chunkFailed.get) chunk.foreach { r =>
                        errors.incrementAndGet();
                        failedAt.merge(r.sourcePartition, r.sourceOffset, (a, b) => java.lang.Long.valueOf(a.longValue min b.longValue))
                      }
                    } >> Option(refusal.get).traverse_(IO.raiseError)))
              }
          }
        }.parEvalMap(64)(identity).compile.drain)).flatTap(_ => IO(firstError.set(producer.firstError)))
      }.adaptError(KafkaClients.denied(target.kafka, Doing.writing(List(topic)))).adaptError(KafkaClients.unreachable(target.kafka, o.timeout))
      acked <- ackedOnce
      n <- read.get
      took <- IO.monotonic.map(_ - started)
      failures = failedAt.asScala.toMap.map { case (p, off) => p -> off.longValue }
      // Interrupted: each source partition resumes at its first failure, else after the last record read.
      resumeAt = if (!interrupted.get) failures
      else nextRead.asScala.toMap.map { case (p, next) => p -> failures.get(p).fold(next.longValue)(_ min next.longValue) } ++ failures
      report = DeliveryReport(n, acked.toList.map(_.get), errors.get, resumeAt, took, interrupted.get)
      _ <- shell.info(report.summary(topic))
      verified <- if (o.verify && report.failed == 0 && !report.interrupted) verify(o, topic, sent.asScala.toMap, target, shell) else IO.pure(true)
      _ <- StepSummary.write(shell, report.stepSummary(topic, Option.when(o.verify && report.failed == 0)(verified)))
      code <- report.resume match {
        case Some(resume) if report.interrupted =>
          shell.info(s"replay: interrupted before everything due was read; resume with --from offset per source partition: $resume (partitions not " +
            "listed: where this run started)").as(Exit.Interrupted)
        case Some(resume) =>
          shell.info(s"replay: some records were not delivered${firstError.get.fold("")(e => s" (the first error: $e)")}; resume with --from " +
            s"offset per source partition: $resume")
            .as(Exit.Unavailable)
        case None => IO.pure(if (verified) Exit.Ok else Exit.Difference)
      }
    } yield ReplayOutcome(code, Some(report))

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

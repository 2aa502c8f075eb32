package bankops.jobs.capture

import cats.effect.IO
import cats.syntax.all._
import org.apache.avro.generic.GenericDatumReader
import org.apache.kafka.clients.admin.{Admin, NewTopic}
import org.apache.kafka.clients.producer.ProducerRecord
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.header.internals.RecordHeader

import java.util.concurrent.atomic.{AtomicLongArray, AtomicReference}
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters._

import bankops.base.{Failure, Shell}
import bankops.jobs.capture.ArchiveParts._
import bankops.services.config.ConnectionSettings
import bankops.services.kafka.{ChunkProducer, ClusterTopics, ConsumerGroups, EndOffsets, KafkaClients}
import bankops.services.records.RecordLine
import bankops.services.registry.{RegistryClient, RegistryError, SchemaReference}

/** What a restore did: records per target topic, schema ids as translated, group offsets set, and each way the copy
  * differs from what was captured (one line each).
  */
final case class RestoreReport(records: Map[String, Long], ids: Map[Int, Int], groups: List[(String, TopicPartition, Long)],
                               accounts: Option[(String, String, Int)], differences: List[String])

/** The effectful shell of `restore`. First everything is read and checked, creating nothing: the schemas' subjects,
  * every record line (streamed, never held), the partitions, the groups, the targets. Then schemas are registered under
  * the subjects of the new topic names (ids translated), topics created with the captured partitions and configs, records
  * written to their partitions with keys, headers and captured timestamps, a frame's id rewritten only when it decodes
  * with the captured schema, and the groups set at the same positions among the restored records.
  */
private[capture] object RestoreRun {
  private type Readers = Map[Int, (org.apache.avro.Schema, GenericDatumReader[Any])]

  def apply(archive: ArchiveReader, plan: RestorePlan, allowNonEmpty: Boolean, resume: Boolean, keepCompaction: Boolean, dbName: String,
            settings: ConnectionSettings, timeout: FiniteDuration, progress: RestoreProgress, shell: Shell): IO[RestoreReport] = {
    def read[A: io.circe.Decoder](name: String): IO[A] =
      IO.blocking(archive.json[A](name)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))
    def refuse[A](e: Either[String, A]): IO[A] = IO.fromEither(e.left.map(Failure.BadInput(_)))
    val captured = archive.manifest.topics.map(_.topic)
    for {
      cluster <- read[CapturedCluster](Cluster)
      schemas <- read[List[CapturedSchema]](Schemas)
      offsets <- read[List[CapturedOffset]](Groups)
      accounts <- if (archive.has(CapturedAccounts.File)) read[CapturedAccounts](CapturedAccounts.File).map(Some(_)) else IO.pure(None)
      files = captured.map(t => t -> ArchiveParts.records(t)) ++ accounts.map(a => a.balanceTopic -> CapturedAccounts.chains(a.balanceTopic))
      topics = files.map(_._1)
      shapes <- refuse(topics.traverse(t => cluster.topics.find(_.name == t).toRight(s"$Cluster: no entry for the archive's topic $t")))
      _ <- refuse(offsets.find(o => shapes.find(_.name == o.topic).forall(_.partitions <= o.partition)).map(o =>
          s"$Groups: group ${o.group} committed on ${o.topic}-${o.partition}, a partition the archive's topics do not have").toLeft(()))
      _ <- refuse(plan.renames.keys.toList.sorted.find(!topics.contains(_)).map(t =>
          s"--rename $t: the archive has no topic $t (its topics: ${topics.mkString(", ")})").toLeft(()))
      subjects <- refuse(plan.subjects(schemas, topics))
      readers <- refuse(ArchiveSchemas.readers(schemas))
      scans <- files.zip(shapes).traverse { case ((t, file), shape) =>
        scan(archive, file, shape.partitions, offsets.filter(_.topic == t)).map(t -> _)
      }
      _ <- refuse(archive.manifest.countsDiffer(scans.filter(s => captured.contains(s._1)).map { case (t, s) => t -> s.counts }.toMap).toLeft(()))
      _ <- IO(progress.total.set(scans.map(_._2.records).sum))
      _ <- shell.info(s"restore: ${scans.map(_._2.records).sum} record line(s) checked; nothing created yet")
      report <- KafkaClients.withAdmin(settings.kafka, timeout) { admin =>
        for {
          // Checked first, created after the schemas are in: a refusal of either leaves the cluster as it was.
          targets <- shapes.traverse(t => checkTopic(admin, t, plan.topic(t.name), allowNonEmpty || resume, shell))
          missing = shapes.zip(targets).collect { case (t, None) => t }
          // On --resume, what an interrupted restore wrote is checked before anything more is.
          resumed <- files.zip(shapes).zip(targets).traverse {
            case (((t, file), _), Some((starts, ends))) if resume =>
              RestoreResume.check(settings.kafka, timeout, archive, file, plan.topic(t), starts, ends, scans.toMap.apply(t).counts).map(t -> _)
            case (((t, _), _), _) => IO.pure(t -> RestoreResume.Fresh)
          }.map(_.toMap)
          // An existing target's own settings decide what it keeps of the records: its configs, read before writing.
          existing <- shapes.zip(targets).collect { case (t, Some(_)) => t.name }.traverse(t =>
            ClusterTopics.describe(admin, List(plan.topic(t))).map(d => t -> d.topics.headOption.fold(Map.empty[String, String])(_.effectiveConfig)))
            .map(_.toMap)
          // --into-non-empty writes after what a target holds, unless it holds records of the archive: those would be twice.
          mixed <- if (!allowNonEmpty) IO.pure(Nil)
          else files.zip(targets).traverse {
            case ((t, file), Some((starts, ends))) if ends.exists { case (p, e) => e > starts.getOrElse(p, e) } =>
              val held = ends.collect { case (p, e) if e > starts.getOrElse(p, e) => p -> (starts(p), e) }
              val count = held.values.map { case (a, b) => b - a }.sum
              RestoreResume.duplicates(settings.kafka, timeout, archive, file, plan.topic(t), held, times = !appendTime(existing(t)))
                .flatMap(refuseDuplicates(plan.topic(t), count, _)).map(d => Option.when(d.nonEmpty)(d))
            case _ => IO.none
          }.map(_.flatten)
          ids <- RegistryClient.resource(settings, timeout).use(registry => registerAll(registry, schemas, subjects, progress))
          _ <- missing.traverse_(t =>
            createTopic(admin, t, plan.topic(t.name), keepCompaction, scans.toMap.apply(t.name).largest, shell) >>
              IO(progress.created(plan.topic(t.name))))
          _ <- shell.info(s"restore: ${ids.size} schema(s) registered: ids ${ids.pairs.map { case (a, b) => s"$a→$b" }.mkString(", ")}")
          largest = scans.map(_._2.largest).maxOption.getOrElse(0)
          written <- ChunkProducer.resource(settings.kafka, timeout, sized(largest)).use(p =>
            files.zip(shapes).traverse { case ((t, file), shape) =>
              // A test's hold after each topic, where a signal finds some records written and others not.
              writeTopic(archive, p, file, plan.topic(t), shape.partitions, ids.of(t), readers, resumed(t), progress, shell).map(t -> _) <*
                TestHold.at(shell, "BANKOPS_RESTORE_PAUSE", "restore")
            })
          groups <- restoreOffsets(admin, offsets, written.toMap, scans.toMap, plan)
          restoredAccounts <- accounts.traverse(a => restoreAccounts(a, plan, dbName, resume, settings, timeout, shell))
        } yield {
          val differences = shapes.flatMap(t =>
            RestorePlan.differences(plan.topic(t.name), t.configs, existing.get(t.name), keepCompaction, scans.toMap.apply(t.name))) ++
            mixed ++
            archive.manifest.topics.filter(_.uncommitted > 0).map(t =>
              s"${plan.topic(t.topic)}: ${t.uncommitted} record(s) were past the last stable offset at capture (read uncommitted, of " +
                "transactions then open): restored as committed records, visible to every reader") ++
            written.flatMap { case (t, w) => w.frames.differences(plan.topic(t)) } ++ groups._2
          RestoreReport(written.map { case (t, w) => plan.topic(t) -> (w.records + w.resumed) }.toMap, ids.any, groups._1, restoredAccounts,
            differences)
        }
      }.adaptError(KafkaClients.unreachable(settings.kafka, timeout))
    } yield report
  }

  private def appendTime(configs: Map[String, String]): Boolean = configs.get("message.timestamp.type").contains("LogAppendTime")

  /** --into-non-empty onto a target that holds `count` records, `duplicates` of them the archive's (None: too many to
    * compare): refused when any would be written twice, else the line saying what the copy holds besides the archive.
    */
  private def refuseDuplicates(target: String, count: Long, duplicates: Option[Long]): IO[String] = duplicates match {
    case Some(n) if n > 0 =>
      IO.raiseError(Failure.BadInput(s"--into-non-empty: target topic $target already holds $n of the archive's record(s) (the same key, " +
          "value, headers and time): writing them again would hold them twice; nothing written (--resume finishes an interrupted restore)"))
    case Some(_) => IO.pure(s"$target: held $count record(s) before the restore, none of them the archive's: the restored records follow them")
    case None => IO.pure(s"$target: held $count record(s) before the restore, more than ${RestoreResume.MaxCompared} to compare: " +
        "whether some are the archive's was not checked")
  }

  /** A line of the archive's `file` as a record, or the exit-2 failure naming file and line. */
  def parsed(file: String): Either[String, (String, Int)] => RecordLine = {
    case Left(e) => throw Failure.BadInput(e)
    case Right((text, n)) => RecordLine.parse(text, n).fold(e => throw Failure.BadInput(s"$file:$n: $e"), identity)
  }

  /** The first pass over a topic's lines: every one parsed and checked, none kept. */
  private def scan(archive: ArchiveReader, file: String, partitions: Int, offsets: List[CapturedOffset]): IO[TopicScan] = {
    val counter = new TopicScan.Counter(file, partitions, offsets)
    // Lines parsed on both cores, then counted in a loop, in order (Chunk.traverse may apply its function in any order).
    archive.stream(file).chunks.parEvalMap(2)(c => IO(c.map(parsed(file))))
      .evalMap(c => IO(c.foreach(l => counter.add(l).left.foreach(e => throw Failure.BadInput(e)))))
      .compile.drain
      // This is the records file's first reading, which checks its checksum as it goes (ArchiveReader.open deferred it):
      // a line that broke the reading may be one the archive never held, and then the mismatch is what to say.
      .handleErrorWith(e => IO.interruptible(archive.verify(file)).flatMap(_.fold(m => IO.raiseError(Failure.BadInput(m)), _ => IO.raiseError(e))))
      .flatMap(_ => IO(counter.result))
  }

  /** A producer that takes the largest captured record (Kafka's default refuses one over 1 MiB). */
  private def sized(largest: Int)(s: fs2.kafka.ProducerSettings[IO, Array[Byte], Array[Byte]]) =
    if (largest + RestorePlan.BatchOverhead <= RestorePlan.DefaultMaxBytes) s
    else s.withProperty("max.request.size", (largest + RestorePlan.BatchOverhead).toString)

  /** The captured accounts' rows in a database of their own on the target's server (the chains went to the restored
    * balance topic with the other records): `balances validate` on the two finds what it found at capture time.
    */
  private def restoreAccounts(a: CapturedAccounts, plan: RestorePlan, dbName: String, resume: Boolean, settings: ConnectionSettings,
                              timeout: FiniteDuration, shell: Shell): IO[(String, String, Int)] =
    CapturedAccounts.restore(settings.database, dbName, a.rows, resume, timeout).flatMap { db =>
      shell.info(s"restore: ${a.rows.size} account(s) into database $dbName; check them with `bankops balances validate --topic " +
        s"${plan.topic(a.balanceTopic)} --db-url ${db.url.value}`").as((plan.topic(a.balanceTopic), db.url.value, a.rows.size))
    }

  /** A target that exists must have the partitions and hold no record (unless asked): its first and end offsets per
    * partition; one that does not (None) is created.
    */
  private def checkTopic(admin: Admin, t: CapturedTopic, target: String, allowNonEmpty: Boolean, shell: Shell)
      : IO[Option[(Map[Int, Long], Map[Int, Long])]] =
    ClusterTopics.names(admin).flatMap { names =>
      if (names.contains(target))
        EndOffsets.of(admin, target).flatMap { ends =>
          EndOffsets.beginnings(admin, ends.keys).flatMap { starts =>
            val held = ends.map { case (tp, e) => e - starts.getOrElse(tp, e) }.sum
            if (ends.size < t.partitions)
              IO.raiseError(Failure.BadInput(s"target topic $target has ${ends.size} partition(s); the archive's ${t.name} had ${t.partitions}"))
            else if (held > 0 && !allowNonEmpty)
              IO.raiseError(Failure.BadInput(s"target topic $target holds $held record(s): a restore never mixes into records it did not write " +
                  "(--resume to finish a restore that was interrupted, --topic-prefix or --rename another name, or --into-non-empty)"))
            else shell.info(s"restore: topic $target exists with ${ends.size} partition(s)")
              .as(Some((starts.map { case (tp, o) => tp.partition -> o }, ends.map { case (tp, o) => tp.partition -> o })))
          }
        }
      else IO.none
    }

  private def createTopic(admin: Admin, t: CapturedTopic, target: String, keepCompaction: Boolean, largest: Int, shell: Shell): IO[Unit] =
    KafkaClients.await(admin.describeCluster().nodes()).flatMap { nodes =>
      val rf = t.replicationFactor min nodes.size max 1
      val topic = new NewTopic(target, t.partitions, rf.toShort).configs(RestorePlan.configs(t.configs, rf, keepCompaction, largest).asJava)
      KafkaClients.await(admin.createTopics(List(topic).asJava).all()).void >>
        shell.info(s"restore: created topic $target (${t.partitions} partition(s), replication $rf, ${t.configs.size} config(s) as captured)")
    }

  /** Every schema registered on the target under the subject the plan gives it, referenced ones first; the captured id
    * to the target's.
    */
  private def registerAll(registry: RegistryClient, schemas: List[CapturedSchema], subjects: Map[String, String],
                          progress: RestoreProgress): IO[RestoredIds] = {
    val referenced = schemas.flatMap(_.references.map(_.subject)).toSet
    val (first, rest) = schemas.partition(s => referenced(s.subject))
    // A reference names a subject and version of the source registry: it is pointed at its restored subject, at the
    // version its schema has there.
    (first ++ rest).foldLeftM((RestoredIds(Map.empty, Map.empty), Map.empty[(String, Int), Int])) { case ((ids, versions), s) =>
      val subject = subjects(s.subject)
      val refs = s.references.map(r =>
        SchemaReference(r.name, subjects.getOrElse(r.subject, r.subject), versions.getOrElse(r.subject -> r.version, r.version)))
      registry.register(subject, s.schema, refs).flatTap(_ => IO(progress.registered(subject))).flatMap { n =>
        val version =
          if (referenced(s.subject)) registry.lookup(subject, s.schema, refs).map {
            case bankops.services.registry.Lookup.Found(v) => versions.updated(s.subject -> s.version, v.version)
            case _ => versions
          }
          else IO.pure(versions)
        version.map(v => (ids.add(s, n), v))
      }.adaptError { case e: RegistryError =>
        Failure.BadInput(s"the registry at ${registry.describe} refused schema id ${s.id} under $subject: ${e.message}; no record was written")
      }
    }.map(_._1)
  }

  /** What was written of one topic: how many records (and how many an interrupted restore had), and each partition's
    * first restored offset.
    */
  private final case class Written(records: Long, resumed: Long, bases: Map[Int, Long], frames: FrameCount)

  /** The records of one topic, streamed in order to their captured partitions, after those `resumed` holds already. */
  private def writeTopic(archive: ArchiveReader, producer: ChunkProducer, file: String, target: String, partitions: Int, ids: Map[Int, Int],
                         readers: Readers, resumed: Resumed, progress: RestoreProgress, shell: Shell): IO[Written] = {
    val bases = new AtomicLongArray(Array.fill(partitions)(Long.MaxValue))
    val failed = new AtomicReference[Exception]()
    val frames = new FrameCount
    def framed(bytes: Array[Byte], value: Boolean): Array[Byte] = frames.translated(bytes, ids, readers, value)
    // Parsed and framed on both cores (FrameCount is safe to share), sent in order.
    val records = archive.stream(file).chunks.parEvalMap(2)(c =>
      IO(c.map(parsed(file)).map { l =>
        // A line without raw bytes is a tombstone (capture writes the bytes of every other value). Times are the captured
        // ones, whatever their type was: the copy is CreateTime, so the broker keeps them.
        new ProducerRecord[Array[Byte], Array[Byte]](target, Integer.valueOf(l.partition.getOrElse(0)),
          l.timestamp.map(java.lang.Long.valueOf).orNull,
          l.key.map(framed(_, value = false)).orNull, l.raw.map(framed(_, value = true)).orNull,
          l.headers.map { case (k, v) => new RecordHeader(k, v): org.apache.kafka.common.header.Header }.asJava)
      })).unchunks
    // Each partition's first records skipped where an interrupted restore wrote them: counted in order, after parsing.
    val rest = if (resumed.held.isEmpty) records
    else records.mapAccumulate(Map.empty[Int, Long]) { (seen, r) =>
      val n = seen.getOrElse(r.partition.intValue, 0L) + 1
      (seen.updated(r.partition.intValue, n), (r, n > resumed.held.getOrElse(r.partition.intValue, 0L)))
    }.collect { case (_, (r, true)) => r }
    // Every record handed over in order, then every acknowledgement awaited: no round trip per chunk.
    producer.watched(rest.chunkN(1000).evalMap(c =>
        producer.sendEach(c)((_, m, e) =>
          if (e != null) { failed.compareAndSet(null, e); () }
          else { bases.accumulateAndGet(m.partition, m.offset, math.min); progress.written.incrementAndGet(); () }).map(c.size -> _))
        .compile.toList.flatMap(sent => sent.traverse_(_._2).as(sent.map(_._1.toLong).sum))).flatMap { n =>
      Option(failed.get).traverse_(e =>
        IO.raiseError[Unit](Failure.Unavailable(s"restore: Kafka did not take a record of $target: ${ChunkProducer.describe(e)}", e))) >>
        shell.info(s"restore: $n records written to $target" +
          (if (resumed.records > 0) s" after the ${resumed.records} an interrupted restore had written" else ""))
          .as(Written(n, resumed.records,
              (0 until partitions).filter(bases.get(_) != Long.MaxValue).map(p => p -> bases.get(p)).toMap ++ resumed.bases, frames))
    }
  }

  /** Each group's offsets at the same positions among the restored records, under the group's new name; a position the
    * copy cannot hold (committed before the window) is said.
    */
  private def restoreOffsets(admin: Admin, offsets: List[CapturedOffset], written: Map[String, Written], scans: Map[String, TopicScan],
                             plan: RestorePlan): IO[(List[(String, TopicPartition, Long)], List[String])] = {
    val placed = offsets.flatMap { o =>
      written.get(o.topic).map { w =>
        val target = new TopicPartition(plan.topic(o.topic), o.partition)
        // No record of that partition in the window: the group stands at the partition's end, as it did.
        (plan.group(o.group), target, w.bases.get(o.partition).fold(-1L)(_ + scans(o.topic).before(o)))
      }
    }
    val before = offsets.flatMap(o =>
      scans.get(o.topic).flatMap(_.first.get(o.partition)).filter(o.offset < _).map(first =>
        s"group ${plan.group(o.group)} on ${plan.topic(o.topic)}-${o.partition}: committed at ${o.offset}, before the window's first record " +
          s"($first): set at the copy's first record, so its lag there is the window's records, not the ${o.lag} it had"))
    val ends = placed.filter(_._3 < 0).map(_._2).distinct
    (if (ends.isEmpty) IO.pure(Map.empty[TopicPartition, Long]) else EndOffsets.ends(admin, ends)).flatMap { end =>
      val resolved = placed.map { case (g, tp, off) => (g, tp, if (off < 0) end.getOrElse(tp, 0L) else off) }
      resolved.groupBy(_._1).toList.traverse_ { case (g, os) => ConsumerGroups.alter(admin, g, os.map(o => o._2 -> o._3).toMap) }
        .as(resolved -> before)
    }
  }
}

package bankops.jobs.capture

import cats.effect.{IO, Ref}
import cats.syntax.all._
import fs2.Chunk
import org.apache.kafka.clients.admin.{Admin, NewTopic}
import org.apache.kafka.clients.producer.ProducerRecord
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.header.internals.RecordHeader

import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters._

import bankops.base.{Failure, Shell}
import bankops.jobs.capture.ArchiveParts._
import bankops.services.config.ConnectionSettings
import bankops.services.kafka.{ChunkProducer, ClusterTopics, ConsumerGroups, EndOffsets, KafkaClients, RecordLine}
import bankops.services.registry.{RegistryClient, RegistryError, SchemaReference}

/** What a restore did: records per target topic, schema ids as translated, group offsets set. */
final case class RestoreReport(records: Map[String, Long], ids: Map[Int, Int], groups: List[(String, TopicPartition, Long)],
                               accounts: Option[(String, String, Int)])

/** The effectful shell of `restore`: target topics checked (a topic that holds records is refused unless asked) or
  * created with the captured partitions and configs, schemas registered under the subjects of the new topic names
  * (ids translated), records written to their partitions with keys, headers and timestamps and each frame's id rewritten,
  * then the groups' offsets at the same positions among the restored records.
  */
private[capture] object RestoreRun {

  def apply(archive: ArchiveReader, plan: RestorePlan, allowNonEmpty: Boolean, dbName: String, settings: ConnectionSettings,
            timeout: FiniteDuration, shell: Shell): IO[RestoreReport] = {
    def read[A: io.circe.Decoder](name: String): IO[A] =
      IO.blocking(archive.json[A](name)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))
    val captured = archive.manifest.topics.map(_.topic)
    for {
      cluster <- read[CapturedCluster](Cluster)
      schemas <- read[List[CapturedSchema]](Schemas)
      offsets <- read[List[CapturedOffset]](Groups)
      accounts <- if (archive.has(CapturedAccounts.File)) read[CapturedAccounts](CapturedAccounts.File).map(Some(_)) else IO.pure(None)
      report <- KafkaClients.withAdmin(settings.kafka, timeout) { admin =>
        for {
          // Checked first, created after the schemas are in: a refusal of either leaves the cluster as it was.
          missing <- cluster.topics.filter(t => captured.contains(t.name) || accounts.exists(_.balanceTopic == t.name)).flatTraverse(t =>
            checkTopic(admin, t, plan.topic(t.name), allowNonEmpty, shell))
          ids <-
            RegistryClient.resource(settings, timeout).use(registry => registerAll(registry, schemas, plan, captured ++ accounts.map(_.balanceTopic)))
          _ <- missing.traverse_(t => createTopic(admin, t, plan.topic(t.name), shell))
          _ <- shell.info(s"restore: ${ids.size} schema(s) registered: ids ${ids.pairs.map { case (a, b) => s"$a→$b" }.mkString(", ")}")
          written <-
            ChunkProducer.resource(settings.kafka, timeout).use(p =>
              captured.traverse(t => writeTopic(archive, p, t, plan.topic(t), ids.of(t), shell)) <* accounts.traverse_(a =>
                writeTopic(archive, p, a.balanceTopic, plan.topic(a.balanceTopic), ids.of(a.balanceTopic), shell,
                  Some(CapturedAccounts.chains(a.balanceTopic)))))
          groups <- restoreOffsets(admin, offsets, written.toMap, plan)
          restoredAccounts <-
            accounts.traverse(a => restoreAccounts(admin, archive, a, cluster, plan, dbName, allowNonEmpty, settings, timeout, shell))
        } yield RestoreReport(written.map { case (t, (n, _)) => plan.topic(t) -> n }.toMap, ids.any, groups, restoredAccounts)
      }.adaptError(KafkaClients.unreachable(settings.kafka, timeout))
    } yield report
  }

  /** The captured accounts' rows in a database of their own on the target's server (the chains went to the restored
    * balance topic with the other records): `balances validate` on the two finds what it found at capture time.
    */
  private def restoreAccounts(admin: Admin, archive: ArchiveReader, a: CapturedAccounts, cluster: CapturedCluster, plan: RestorePlan, dbName: String,
                              allowNonEmpty: Boolean, settings: ConnectionSettings, timeout: FiniteDuration, shell: Shell)
      : IO[(String, String, Int)] =
    CapturedAccounts.restore(settings.database, dbName, a.rows, timeout).flatMap { db =>
      shell.info(s"restore: ${a.rows.size} account(s) into database $dbName; check them with `bankops balances validate --topic " +
        s"${plan.topic(a.balanceTopic)} --db-url ${db.url.value}`").as((plan.topic(a.balanceTopic), db.url.value, a.rows.size))
    }

  /** A target that exists must have the partitions and hold no record (unless asked); one that does not is created. */
  private def checkTopic(admin: Admin, t: CapturedTopic, target: String, allowNonEmpty: Boolean, shell: Shell): IO[List[CapturedTopic]] =
    ClusterTopics.names(admin).flatMap { names =>
      if (names.contains(target))
        EndOffsets.of(admin, target).flatMap { ends =>
          EndOffsets.beginnings(admin, ends.keys).flatMap { starts =>
            val held = ends.map { case (tp, e) => e - starts.getOrElse(tp, e) }.sum
            if (ends.size < t.partitions)
              IO.raiseError(Failure.BadInput(s"target topic $target has ${ends.size} partition(s); the archive's ${t.name} had ${t.partitions}"))
            else if (held > 0 && !allowNonEmpty)
              IO.raiseError(Failure.BadInput(s"target topic $target holds $held record(s): a restore never mixes into records it did not write " +
                  "(--topic-prefix or --rename another name, or --into-non-empty)"))
            else shell.info(s"restore: topic $target exists with ${ends.size} partition(s)").as(Nil)
          }
        }
      else IO.pure(List(t))
    }

  private def createTopic(admin: Admin, t: CapturedTopic, target: String, shell: Shell): IO[Unit] =
    KafkaClients.await(admin.describeCluster().nodes()).flatMap { nodes =>
      val rf = t.replicationFactor min nodes.size max 1
      val topic = new NewTopic(target, t.partitions, rf.toShort).configs(RestorePlan.configs(t.configs, rf).asJava)
      KafkaClients.await(admin.createTopics(List(topic).asJava).all()).void >>
        shell.info(s"restore: created topic $target (${t.partitions} partition(s), replication $rf, ${t.configs.size} config(s) as captured)")
    }

  /** Every schema registered on the target, referenced ones first; the captured id to the target's. */
  private def registerAll(registry: RegistryClient, schemas: List[CapturedSchema], plan: RestorePlan, topics: List[String])
      : IO[RestoredIds] = {
    val referenced = schemas.flatMap(_.references.map(_.subject)).toSet
    val (first, rest) = schemas.partition(s => referenced(s.subject))
    // A reference names a version of the source registry: it is pointed at the version its schema has on the target.
    (first ++ rest).foldLeftM((RestoredIds(Map.empty, Map.empty), Map.empty[(String, Int), Int])) { case ((ids, versions), s) =>
      val subject = if (referenced(s.subject)) s.subject else plan.subject(s.subject, topics)
      val refs = s.references.map(r => SchemaReference(r.name, r.subject, versions.getOrElse(r.subject -> r.version, r.version)))
      registry.register(subject, s.schema, refs).flatMap { n =>
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

  /** The records of one topic, in order, to their captured partitions; for each partition the captured offsets (in order)
    * and the first restored one.
    */
  private def writeTopic(archive: ArchiveReader, producer: ChunkProducer, topic: String, target: String, ids: Map[Int, Int], shell: Shell,
                         file: Option[String] = None): IO[(String, (Long, Map[Int, (Vector[Long], Long)]))] =
    Ref.of[IO, Map[Int, (Vector[Long], Long)]](Map.empty).flatMap { positions =>
      val name = file.getOrElse(ArchiveParts.records(topic))
      IO.blocking(archive.lines(name)(_.map {
        case Left(e) => throw Failure.BadInput(e)
        case Right((text, n)) => RecordLine.parse(text, n).fold(e => throw Failure.BadInput(s"$name:$n: $e"), identity)
      }.toVector)).flatMap { lines =>
        val records = lines.map { l =>
          // A line without raw bytes is a tombstone (capture writes the bytes of every other value).
          val value = l.raw.map(raw =>
            bankops.services.avro.WireFormat.schemaIdOf(raw).toOption.flatMap(ids.get) match {
              case Some(id) => val out = raw.clone(); java.nio.ByteBuffer.wrap(out, 1, 4).putInt(id); out
              case None => raw
            }).orNull
          // LogAppendTime cannot be set by a producer: the broker stamps its own; CreateTime is kept.
          val time = l.timestamp.filter(_ => !l.timestampType.contains("LogAppendTime")).map(java.lang.Long.valueOf).orNull
          new ProducerRecord[Array[Byte], Array[Byte]](target, Integer.valueOf(l.partition.getOrElse(0)), time, l.key.orNull, value,
            l.headers.map { case (k, v) => new RecordHeader(k, v): org.apache.kafka.common.header.Header }.asJava)
        }
        val acked = new Array[Long](records.size)
        val errors = new java.util.concurrent.atomic.AtomicReference[Exception]()
        // Every record handed over in order, then every acknowledgement awaited: no round trip per batch.
        producer.watched(records.grouped(1000).zipWithIndex.toList.traverse { case (group, g) =>
          producer.sendEach(Chunk.from(group))((i, m, e) => if (e != null) errors.compareAndSet(null, e) else acked(g * 1000 + i) = m.offset)
        }.flatMap(_.sequence_)) >>
          Option(errors.get).traverse_(e =>
            IO.raiseError[Unit](Failure.Unavailable(s"restore: Kafka did not take a record of $target: ${e.getMessage}", e))) >>
          positions.set(lines.zipWithIndex.foldLeft(Map.empty[Int, (Vector[Long], Long)]) { case (acc, (l, i)) =>
            val p = l.partition.getOrElse(0)
            acc.get(p).fold(acc.updated(p, (Vector(l.offset.getOrElse(0L)), acked(i))))(s => acc.updated(p, (s._1 :+ l.offset.getOrElse(0L), s._2)))
          }) >> positions.get.flatMap(m => shell.info(s"restore: ${lines.size} records written to $target").as(topic -> (lines.size.toLong -> m)))
      }
    }

  /** Each group's offsets at the same positions among the restored records, under the group's new name. */
  private def restoreOffsets(admin: Admin, offsets: List[CapturedOffset], written: Map[String, (Long, Map[Int, (Vector[Long], Long)])],
                             plan: RestorePlan): IO[List[(String, TopicPartition, Long)]] = {
    val placed = offsets.flatMap { o =>
      written.get(o.topic).map { case (_, parts) =>
        val target = new TopicPartition(plan.topic(o.topic), o.partition)
        parts.get(o.partition) match {
          case Some((captured, base)) => (plan.group(o.group), target, RestorePlan.offset(o.offset, captured, base))
          // No record of that partition in the window: the group stands at the partition's end, as it did.
          case None => (plan.group(o.group), target, -1L)
        }
      }
    }
    val ends = placed.filter(_._3 < 0).map(_._2).distinct
    (if (ends.isEmpty) IO.pure(Map.empty[TopicPartition, Long]) else EndOffsets.ends(admin, ends)).flatMap { end =>
      val resolved = placed.map { case (g, tp, off) => (g, tp, if (off < 0) end.getOrElse(tp, 0L) else off) }
      resolved.groupBy(_._1).toList.traverse_ { case (g, os) => ConsumerGroups.alter(admin, g, os.map(o => o._2 -> o._3).toMap) }.as(resolved)
    }
  }
}

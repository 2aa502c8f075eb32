package bankops.jobs.capture

import cats.effect.{IO, Ref}
import cats.syntax.all._
import io.circe.syntax._
import org.apache.kafka.clients.admin.Admin
import org.apache.kafka.common.TopicPartition

import java.time.Instant
import scala.collection.concurrent.TrieMap

import bankops.base.{Failure, Interrupt, LineReader, OutputFile, Shell, Version}
import bankops.services.bank.{BalanceChanged, BankNames}
import bankops.services.config.ConnectionSettings
import bankops.services.contracts.{SubjectNameStrategy, Topology}
import bankops.services.kafka.{
  ClusterTopics, ConsumerGroups, EndOffsets, KafkaClients, KeyPartition, OpenTransaction, OpenTransactions, ReadSpec, StartAt, StopAt, TopicReader
}
import bankops.services.records.{Envelope, RecordDecoder, RecordLine}
import bankops.services.registry.{Lookup, RegistryClient, SchemaResolver}

/** What a capture wrote, or would write with --dry-run. */
final case class CaptureReport(manifest: ArchiveManifest, estimated: Long, estimatedBytes: Long, interrupted: Boolean,
                               heldBack: List[String] = Nil, unredactable: (Long, Vector[String]) = (0L, Vector.empty))

/** The effectful shell of `capture`: the cluster's shape and the groups' offsets first (at capture time), then each
  * topic's records read in turn into the archive, then the schemas their frames name, then the manifest. The archive is
  * written to a partial file and moved into place only when whole: Ctrl-C or an error leaves nothing under its name.
  */
private[capture] object CaptureRun {
  import ArchiveParts._

  def apply(o: CaptureOptions, settings: ConnectionSettings, topology: Topology, shell: Shell): IO[CaptureReport] = {
    val strategy = o.strategy.getOrElse(topology.subjectNameStrategy)
    val named = if (o.window.topics.nonEmpty) o.window.topics else topology.topics.map(_.name)
    val balanceTopic = o.accounts.balanceTopic.orElse(topology.topics.find(_.records.exists(_.fullName ==
            BalanceChanged.codec.schema
              .fold(_ => "", _.getFullName))).map(_.name)).getOrElse(BankNames.BalanceChanged)
    IO.fromEither(o.accounts.findings.traverse(CapturedAccounts.fromFindings).left.map(Failure.BadInput(_))).flatMap { flagged =>
      val ibans = (o.accounts.ibans ++ flagged.toList.flatten).distinct
      val accounts = Option.when(ibans.nonEmpty)(ibans -> balanceTopic)
      // The topology's topics by default: with accounts, their chains come from the balance topic whole, not its window.
      val topics = if (o.window.topics.isEmpty && accounts.nonEmpty) named.filterNot(_ == balanceTopic) else named
      run(o.copy(window = o.window.copy(topics = topics)), settings, topology, strategy, accounts,
        CaptureAsked(topics, from = o.window.fromText, to = o.window.toText, filters = o.filterText(), groups = o.groups, accounts = ibans,
          redacted = o.redact),
        shell)
    }
  }

  private def run(o: CaptureOptions, settings: ConnectionSettings, topology: Topology, strategy: SubjectNameStrategy,
                  accounts: Option[(List[String], String)], asked: CaptureAsked, shell: Shell): IO[CaptureReport] = {
    val topics = o.window.topics
    KafkaClients.withAdmin(settings.kafka, o.timeout) { admin =>
      for {
        _ <- accounts.filter(a => topics.contains(a._2)).traverse_(a =>
          IO.raiseError(Failure.BadInput(
              s"--accounts captures the whole BalanceChanged chains of those accounts from ${a._2}: leave ${a._2} out of --topic")))
        described <- ClusterTopics.describe(admin, topics ++ accounts.map(_._2).toList)
        // One cut: with --to end, every topic's end (and the balance topic's, for the accounts' chains) is fixed at one
        // instant before any is read, so a topic read after another stops where it stood then, not where it moved to.
        cut <- CaptureCut(admin, described.topics.flatMap(t => t.partitions.map(p => new TopicPartition(t.name, p.partition))), o.window.to,
          o.transactions, shell)
        stop = cut.stop
        at = o.copy(window = o.window.copy(to = stop))
        cluster = CapturedCluster(described.brokers,
          described.topics.map { t =>
            CapturedTopic(t.name, t.partitions.size, t.replicationFactor,
              t.configs.collect { case c if c.source == "topic" && c.value.isDefined && !c.sensitive => c.name -> c.value.get }.toMap,
              t.partitions.map(p => CapturedPartition(p.partition, p.leader, p.replicas, p.isr)))
          })
        // Bytes per record from the partitions' log sizes: an estimate of the archive before it is read.
        perRecord = {
          val parts = described.topics.flatMap(_.partitions)
          val records = parts.flatMap(p => (p.logStart, p.end).mapN((a, b) => b - a)).sum
          val bytes = parts.flatMap(_.size).sum
          if (records > 0) bytes.toDouble / records else 0.0
        }
        offsets <- groupOffsets(admin, topics, o.groups, stop)
        // With --open-transactions read, the records past the last stable offsets count too.
        plans <- topics.traverse(t =>
          cut.reads(t, spec(at, t)).traverse(r =>
            TopicReader.open(settings.kafka, r, o.timeout).use(p => IO.pure(p._1.total.getOrElse(0L)))).map(n => t -> n.sum))
        estimated = plans.map(_._2).sum
        // JSON lines hold each record's bytes twice (decoded and base64): about three times its size on the log, before ZIP.
        estimatedBytes = (estimated * perRecord * 3).toLong
        _ <-
          shell.info(s"capture: about $estimated records from ${topics.size} topic(s) (${plans.map { case (t, n) => s"$t $n" }.mkString(", ")}), " +
            s"about ${mb(estimatedBytes)} before compression; ${offsets.map(_.group).distinct.size} group(s)")
        _ <- IO.raiseWhen(estimated == 0)(noRecords(asked))
        report <-
          if (o.archive.dryRun)
            IO.pure(CaptureReport(ArchiveManifest(ArchiveManifest.Format, ArchiveManifest.Version, Version.current, Instant.now().toString,
                  asked.copy(groups = offsets.map(_.group).distinct), Nil, Nil), estimated, estimatedBytes, interrupted = false))
          else Interrupt.onCtrlC.use { ctrlC =>
            val partitions =
              described.topics.filter(t => topics.contains(t.name)).flatMap(t => t.partitions.map(p => new TopicPartition(t.name, p.partition)))
            // The window's end is the last stable offset: a transaction open from before the read to after it held it
            // back (unless read past).
            val watched = o.window.to == StopAt.End && o.transactions != AtOpenTransaction.Read
            (if (watched) OpenTransactions.of(admin, partitions) else IO.pure(Nil)).flatMap { openBefore =>
              IO.race(ctrlC,
                write(at, settings, topology, strategy, topics, accounts, asked.copy(groups = offsets.map(_.group).distinct), cluster, offsets,
                  estimated, cut, shell)).flatMap {
                case Left(_) =>
                  IO.pure(CaptureReport(ArchiveManifest(ArchiveManifest.Format, ArchiveManifest.Version, Version.current, "", asked, Nil, Nil),
                      estimated, estimatedBytes, interrupted = true))
                case Right((m, unredactable)) =>
                  (if (openBefore.isEmpty) IO.pure(Nil) else heldBack(admin, openBefore))
                    .map(CaptureReport(m, estimated, estimatedBytes, false, _, unredactable))
              }
            }
          }
      } yield report
    }.adaptError(KafkaClients.unreachable(settings.kafka, o.timeout))
  }

  /** The transactions open before the read that are still open after it, each a line. */
  private def heldBack(admin: Admin, before: List[OpenTransaction]): IO[List[String]] =
    (OpenTransactions.of(admin, before.map(_.partition).distinct), OpenTransactions.unstable(admin, before.map(_.partition).distinct)).tupled.map {
      case (after, unstable) =>
        after.filter(a => before.exists(_.same(a))).groupBy(_.partition).toList.sortBy(_._1.toString).flatMap { case (tp, open) =>
          unstable.get(tp).map { case (stable, beyond) => OpenTransactions.held(open.minBy(_.firstOffset), stable, beyond) }
        }
    }

  private def mb(bytes: Long): String = f"${bytes / 1048576.0}%.1f MiB"

  private def spec(o: CaptureOptions, topic: String): ReadSpec = ReadSpec(List(topic), None, o.window.from, o.window.to)

  /** Each group's committed offsets on the topics, with its lag (to the cut's end, when there is one); the groups named,
    * or every group with offsets there.
    */
  private def groupOffsets(admin: Admin, topics: List[String], named: List[String], stop: StopAt): IO[List[CapturedOffset]] =
    for {
      groups <- if (named.nonEmpty) ConsumerGroups.describe(admin, named).as(named) else ConsumerGroups.names(admin)
      committed <- groups.traverse(g => ConsumerGroups.committed(admin, g).map(c => g -> c.filter { case (tp, _) => topics.contains(tp.topic) }))
      partitions = committed.flatMap(_._2.keys).distinct
      ends <- stop match {
        case StopAt.Ends(cut) => IO.pure(cut)
        case _ => if (partitions.isEmpty) IO.pure(Map.empty[TopicPartition, Long]) else EndOffsets.ends(admin, partitions)
      }
    } yield committed.flatMap { case (g, c) =>
      c.toList.sortBy { case (tp, _) => (tp.topic, tp.partition) }.map { case (tp, off) =>
        CapturedOffset(g, tp.topic, tp.partition, off, (ends.getOrElse(tp, off) - off) max 0L)
      }
    }

  private def write(o: CaptureOptions, settings: ConnectionSettings, topology: Topology, strategy: SubjectNameStrategy, topics: List[String],
                    accounts: Option[(List[String], String)],
                    asked: CaptureAsked, cluster: CapturedCluster, offsets: List[CapturedOffset], estimated: Long, cut: CaptureCut,
                    shell: Shell): IO[(ArchiveManifest, (Long, Vector[String]))] =
    RegistryClient.resource(settings, o.timeout).use { registry =>
      val resolver = new SchemaResolver(registry)
      // Values are kept as their bytes (lossless, and half the size of bytes and JSON both); `capture show --records`
      // decodes them. Plain JSON is built only for a --where filter.
      val decoder = new RecordDecoder(resolver, plainValues = o.filter.where.nonEmpty)
      // Each schema id the frames carry, with the topic and record type it was met with (its subject follows from them).
      val ids = TrieMap.empty[(Int, String), String]
      val redact = o.redact.map(_.split('.').toList)
      // The filters' operands that a masked field held: masked in the manifest too.
      val (operands, exposed) = (o.operands, java.util.concurrent.ConcurrentHashMap.newKeySet[String]())
      // Records left out by --skip-unredactable: how many, and the first few named.
      val unredactable = new java.util.concurrent.atomic.AtomicReference[(Long, Vector[String])]((0L, Vector.empty))
      OutputFile.writeStream("--out", o.archive.file, o.archive.overwrite) { stream =>
        val archive = new ArchiveWriter(stream)
        for {
          progress <- Ref.of[IO, (Long, Long)]((0L, 0L))
          started <- IO.monotonic
          // One topic's records as JSON lines into the archive's file `name`, read by each of `reads` in turn (the last
          // past the last stable offsets, `stable`, with --open-transactions read); their spans per partition.
          copy = (name: String, topic: String, reads: List[ReadSpec], keep: Envelope => Boolean, stable: Map[TopicPartition, Long]) =>
            archive.lines(name) { out =>
              fs2.Stream.emits(reads).flatMap(read => fs2.Stream.resource(TopicReader.open(settings.kafka, read, o.timeout)).flatMap(_._2))
                // Decoded, masked and rendered two chunks at a time; written (deflate, SHA-256) and counted in order.
                .chunks.parEvalMap(2) { chunk =>
                  decoder.decodeChunk(chunk).map { decoded =>
                    val lines = new java.io.ByteArrayOutputStream(chunk.size * 400)
                    // One builder for the chunk's lines: a builder, its growth and a concatenation per line were half
                    // of capture's allocation (async-profiler, alloc).
                    val sb = new java.lang.StringBuilder(512)
                    val written = List.newBuilder[(Int, Long, Long)]
                    val skipped = Vector.newBuilder[String]
                    decoded.zip(chunk).filter(p => keep(p._1.envelope)).foreach { case (d, r) =>
                      d.envelope.schemaId.zip(d.schema).foreach { case (id, s) => ids.putIfAbsent(id -> topic, s.getFullName) }
                      // A value that cannot be decoded cannot be masked either: it is never kept in clear. It stops the
                      // capture, or with --skip-unredactable is left out and named.
                      val redacted = if (redact.isEmpty || r.value == null) Right(None)
                      else (d.datum, d.schema, d.envelope.schemaId).mapN((datum, s, id) => Redaction(datum, s, id, redact))
                        .getOrElse(Left(s"does not decode (${d.envelope.error.getOrElse("no schema")})"))
                      redacted match {
                        case Left(why) if o.skipUnredactable => skipped += s"$topic-${r.partition}@${r.offset} $why"
                        case Left(why) =>
                          throw Failure.BadInput(s"--redact: the record at $topic-${r.partition}@${r.offset} $why; nothing captured " +
                            "(--skip-unredactable leaves such records out)")
                        case Right(masked) =>
                          val hidden = masked.fold(Set.empty[String])(_._2)
                          if (operands.nonEmpty) hidden.foreach(h => if (operands(h)) exposed.add(h))
                          val e = d.envelope.copy(raw = masked.map(_._1).orElse(Option(r.value)),
                            key = d.envelope.key.map(Redaction.repeated(_, hidden)),
                            headers = d.envelope.headers.map { case (k, v) => k -> v.map(Redaction.repeated(_, hidden)) })
                          sb.setLength(0)
                          RecordLine.write(e, None, sb)
                          val line = sb.append('\n').toString.getBytes(java.nio.charset.StandardCharsets.UTF_8)
                          // A line restore and `capture show` could not read back is refused here, not found there.
                          if (line.length - 1 > LineReader.MaxLineBytes)
                            throw Failure.BadInput(LineReader.refusal(s"$topic-${r.partition}@${r.offset}", line.length - 1L, "an archive line") +
                              "; nothing captured (end the window before it, or leave its topic out)")
                          lines.write(line)
                          written += ((r.partition, r.offset, r.timestamp))
                      }
                    }
                    (lines, written.result(), skipped.result())
                  }
                }.evalMap { case (lines, written, skipped) =>
                  IO.blocking(lines.writeTo(out)) >>
                    IO(unredactable.updateAndGet(l => (l._1 + skipped.size, (l._2 ++ skipped).take(5)))).whenA(skipped.nonEmpty) >>
                    (progress.updateAndGet { case (n, b) => (n + written.size, b + lines.size) }, IO.monotonic).tupled.flatMap { case ((n, b), now) =>
                      val rate = n / (((now - started).toMillis / 1000.0) max 0.001)
                      shell.info(f"capture: $topic: $n%,d of about $estimated%,d records ($rate%,.0f/s, ${mb(b)})")
                        .whenA(n / 20000 != (n - written.size) / 20000)
                    }.as(written)
                }.compile.fold(Map.empty[Int, PartitionSpan])((acc, lines) =>
                  lines.foldLeft(acc) { case (m, (p, off, ts)) =>
                    m.updated(p, PartitionSpan.next(m.get(p), p, off, Option(ts).filter(_ >= 0), stable.get(new TopicPartition(topic, p))))
                  }).map(m => TopicSpan(topic, m.values.toList.sortBy(_.partition)))
            }
          // The accounts' rows first: read at the cut, as their chains' ends are, not after the topics' records.
          accountRows <- accounts.traverse { case (ibans, _) => CapturedAccounts.rows(settings.database, ibans, o.timeout) }
          spans <- topics.traverse(t =>
            copy(records(t), t, cut.reads(t, spec(o, t)), o.filter.selects, cut.stable) <*
              TestHold.at(shell, "BANKOPS_CAPTURE_PAUSE", "capture"))
          captured <- accounts.zip(accountRows).fold(IO.pure(Option.empty[(CapturedAccounts, TopicSpan)])) { case ((ibans, balanceTopic), rows) =>
            IO.unit.flatMap { _ =>
              val partitions = cluster.topics.find(_.name == balanceTopic).fold(1)(_.partitions)
              val chainSpec = ReadSpec(List(balanceTopic), Some(ibans.map(KeyPartition.of(_, partitions)).distinct.sorted), StartAt.Beginning,
                o.window.to match { case cut: StopAt.Ends => cut; case _ => StopAt.End })
              copy(CapturedAccounts.chains(balanceTopic), balanceTopic, List(chainSpec), e => e.keyText.exists(ibans.contains), Map.empty).flatMap {
                chains =>
                  // A row's column that holds what a masked field holds (the token, a balance) is masked with it.
                  val kept = CapturedAccounts.redacted(rows, o.redact)
                  val found = CapturedAccounts(balanceTopic, kept, ibans.filterNot(i => rows.exists(_.iban == i)))
                  archive.text(CapturedAccounts.File, found.asJson.spaces2).as(Some(found -> chains))
              }
            }
          }
          _ <- captured.traverse_ { case (a, chains) =>
            shell.info(s"capture: ${a.rows.size} account row(s) and ${chains.records} ${a.balanceTopic} record(s) of their chains" +
              (if (a.missing.isEmpty) "" else s"; not in the database: ${a.missing.mkString(", ")}"))
          }
          _ <- IO.raiseWhen(spans.map(_.records).sum == 0)(noRecords(asked))
          schemas <- capturedSchemas(registry, strategy, ids.toMap)
          _ <-
            o.redact.filterNot(f => ids.keys.map(_._1).flatMap(decoder.writerSchema).exists(Redaction.holds(_, f.split('.').toList))).traverse_(f =>
              IO.raiseError[Unit](Failure.BadInput(s"--redact $f: no captured record has that field; nothing captured")))
          _ <- archive.text(Schemas, schemas.asJson.spaces2)
          _ <- archive.text(Groups, offsets.asJson.spaces2)
          _ <- archive.text(Cluster, cluster.asJson.spaces2)
          _ <- IO.blocking(os.exists(topology.file) && os.isFile(topology.file)).ifM(
            IO.blocking(os.read(topology.file)).flatMap(archive.text(TopologyFile, _)), IO.unit)
          manifest = ArchiveManifest(ArchiveManifest.Format, ArchiveManifest.Version, Version.current, Instant.now().toString,
            asked.copy(filters = o.filterText(exposed.contains)), spans,
            archive.files)
          _ <- archive.text(ManifestFile, manifest.asJson.spaces2)
          _ <- archive.finish()
        } yield manifest -> unredactable.get
      }
    }

  /** The schemas of the ids met, each with the subject and version it has on the registry, and those they reference. */
  private def capturedSchemas(registry: RegistryClient, strategy: SubjectNameStrategy, ids: Map[(Int, String), String])
      : IO[List[CapturedSchema]] =
    ids.toList.sortBy(_._1).traverse { case ((id, topic), record) =>
      registry.schemaById(id).flatMap { s =>
        val subject = strategy.subject(topic, record)
        registry.lookup(subject, s.schema, s.references).map {
          case Lookup.Found(v) => CapturedSchema(id, subject, v.version, s.schema, s.references, Some(topic))
          case _ => CapturedSchema(id, subject, 0, s.schema, s.references, Some(topic))
        }.flatMap { own =>
          s.references.traverse(r => registry.version(r.subject, r.version.toString)).map(_.flatten.map(v =>
              CapturedSchema(v.id, v.subject, v.version, v.schema, v.references)))
            .map(own :: _)
        }
      }
    }.map(_.flatten.distinctBy(s => (s.id, s.subject)).sortBy(s => (s.id, s.subject)))

  /** A window without records is refused, and nothing is written: an empty archive reproduces nothing. */
  private[capture] def noRecords(asked: CaptureAsked): Failure =
    Failure.BadInput(s"no records in the window asked for (${asked.topics.mkString(", ")} from ${asked.from} to ${asked.to}" +
      s"${if (asked.filters.isEmpty) "" else s", ${asked.filters.mkString(" ")}"}); nothing captured")
}

package bankops.jobs.replay

import cats.effect.{ExitCode, IO, Resource}
import cats.syntax.all._
import com.monovore.decline.Opts
import fs2.{Chunk, Stream}

import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Interrupt, Job, OutputFile, Shell, Shown, StepSummary, TextFile, Flags, LineReader}
import bankops.flags.{ConnectionOpts, SourceOpts, TopicFlags, TopologyFlags}
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections}
import bankops.services.contracts.{SchemaFile, SchemaFiles, SubjectNameStrategy, Topology, TopologyChoice}
import bankops.services.kafka.{Doing, KafkaClients, ReadSpec, StopAt, TopicReader}
import bankops.services.plan.TopicSync
import bankops.services.records.{RecordDecoder, RecordFilter, RecordLine}
import bankops.services.registry.{RegistryClient, SchemaResolver}

/** `bankops replay`: topic → topic (also across clusters and registries), file → topic, topic → file. */
object ReplayCommand {

  sealed trait From
  final case class FromTopic(spec: ReadSpec, filter: RecordFilter) extends From
  final case class FromFile(file: os.Path) extends From
  sealed trait To
  final case class ToTopic(topic: String) extends To
  /** `overwrite`: replace an existing regular file (never a directory, link or device). */
  final case class ToFile(file: os.Path, overwrite: Boolean) extends To

  /** The target cluster and registry, when not the source's: --to-bootstrap-server, --to-command-config, --to-registry-url. */
  final case class TargetFlags(bootstrap: Option[String] = None, commandConfig: Option[os.Path] = None, registry: Option[String] = None) {
    def over(source: ConnectionFlags): ConnectionFlags = source.copy(bootstrapServer = bootstrap.orElse(source.bootstrapServer),
      commandConfig = commandConfig.orElse(source.commandConfig), registryUrl = registry.orElse(source.registryUrl))
  }

  /** How a file's lines become values: raw bytes (--exact), or encoded with --schema-dir's or the target's schemas;
    * with --no-strict the valid lines go even when others are invalid.
    */
  final case class FileInput(exact: Boolean = false, schemaDir: Option[os.Path] = None, strict: Boolean = true)

  /** The flags resolved into the small values each step takes, every field but `from` and `to` at its flag's default:
    * built by name, or refined with `copy`.
    */
  final case class Options(from: From, to: To, flags: ConnectionFlags = ConnectionFlags(), target: TargetFlags = TargetFlags(),
                           input: FileInput = FileInput(), delivery: Delivery = Delivery(), createTopic: Boolean = false,
                           topology: TopologyChoice = TopologyChoice(None, None), strategy: Option[SubjectNameStrategy] = None,
                           limit: Option[Long] = None, timeout: FiniteDuration = 30.seconds)
  /** A file of JSON lines to a topic, encoded with the target's latest schemas, strict, every other flag at its default. */
  def fileToTopic(flags: ConnectionFlags, file: os.Path, topic: String): Options = Options(FromFile(file), ToTopic(topic), flags = flags)

  private val path = (name: String, help: String) => Opts.option[String](name, help, metavar = "FILE").map(os.Path(_, os.pwd))

  private val from: Opts[From] =
    (SourceOpts.topics("from-topic", "Source topic (repeatable)."), SourceOpts.partitions, SourceOpts.from, SourceOpts.to, SourceOpts.filter)
      .mapN((ts, ps, start, stop, f) => FromTopic(ReadSpec(ts.toList.distinct, ps, start, stop.getOrElse(StopAt.End)), f): From) orElse
      path("from-file", "Source file: JSON lines as `inspect --output json` or `replay --to-file` write them.").map(FromFile(_): From)

  private val to: Opts[To] =
    TopicFlags.option("to-topic", "Target topic.").map(ToTopic(_): To) orElse
      (path("to-file",
          "Target file: lossless JSON lines (raw value bytes alongside the decoded value); a new name, or an existing " +
            "regular file with --overwrite."),
        Opts.flag("overwrite", "With --to-file: replace the file when it exists (a directory, link or device is never replaced).").orFalse).mapN(
        ToFile(_, _): To)

  private val targetFlags: Opts[TargetFlags] = (
    Opts.option[String]("to-bootstrap-server", "Target cluster (default: the source's).", metavar = "SERVERS").orNone,
    path("to-command-config", "Target cluster's client properties (default: the source's).").orNone,
    Opts.option[String]("to-registry-url", "Target registry; when it differs, schema ids are translated (default: the source's).",
      metavar = "URL").orNone
  ).mapN((bootstrap, commandConfig, registry) => TargetFlags(bootstrap = bootstrap, commandConfig = commandConfig, registry = registry))

  private val opts: Opts[Options] = (
    ConnectionOpts.opts, from, to, targetFlags,
    Opts.flag("exact", "File to topic: send the raw value bytes and original timestamps, not a re-encoding of value.").orFalse,
    Opts.flag("keep-timestamps", "Send each record with its original timestamp.").orFalse,
    Opts.flag("keep-partition", "Send each record to its original partition number (default: by key, as the default partitioner does).").orFalse,
    path("schema-dir", "File to topic: encode with these .avsc files (registered on the target) instead of the subjects' latest versions.").orNone,
    Opts.flag("no-strict", "File to topic: send the valid lines even when some are invalid.").orFalse.map(!_),
    Opts.flag("verify", "Read the target back and compare record by record.").orFalse,
    Flags.positive[Int]("rate", "At most N records per second.").orNone,
    Opts.flag("dry-run", "Read, decode and validate; send and write nothing.").orFalse,
    Opts.flag("create-topic", "Create a missing target topic as the topology declares it.").orFalse,
    TopologyFlags.choice,
    TopologyFlags.strategy,
    SourceOpts.limit,
    Flags.timeout(30.seconds)
  ).mapN {
    (flags, from, to, target, exact, keepTimestamps, keepPartition, schemaDir, strict, verify, rate, dryRun, createTopic, topology, strategy,
     limit, timeout) =>
      Options(from, to, flags = flags, target = target,
        input = FileInput(exact = exact, schemaDir = schemaDir, strict = strict),
        delivery = Delivery(dryRun = dryRun, rate = rate, keepPartition = keepPartition, keepTimestamps = keepTimestamps || exact, verify = verify,
          timeout = timeout),
        createTopic = createTopic, topology = topology, strategy = strategy, limit = limit, timeout = timeout)
  }.mapValidated { o =>
    (o.from, o.to) match {
      case (FromFile(_), ToFile(_, _)) => fileToFile.message.invalidNel
      case (_, ToFile(_, _)) if o.delivery.rate.isDefined =>
        "--rate paces sending to a topic; --to-file writes records as fast as they are read (drop --rate)".invalidNel
      case _ => o.validNel
    }
  }

  /** File to file is no replay: refused while parsing, and again by the steps that would have to take it. */
  private def fileToFile: Failure = Failure.BadInput("--from-file with --to-file: copy the file instead")

  /** A replay, for the CLI and for callers in this process: its progress and summary lines go to `shell`'s stderr as it
    * runs; to a topic, what was delivered.
    */
  def replay(o: Options, shell: Shell): IO[ReplayOutcome] =
    for {
      // A path that would be refused is named before any service is asked for anything.
      _ <- o.to match {
        case ToFile(f, overwrite) => OutputFile.check("--to-file", f, overwrite)
        case ToTopic(_) => IO.unit
      }
      source <- Connections.load(o.flags, shell)
      target <- Connections.load(o.target.over(o.flags), shell)
      topology <- TopologyChoice.load(o.topology, shell)
      strategy = o.strategy.getOrElse(topology.subjectNameStrategy)
      // The target's partition count is asked for while the source opens; nothing is sent before it answers.
      partitionCount = o.to match {
        case ToTopic(t) if !o.delivery.dryRun =>
          ensureTopic(t, o.createTopic, o.timeout, target, topology, shell).background.map(_.flatMap(_.embedNever))
        // A dry run asks whether the target exists (a real run would fail on it), and creates nothing.
        // Asked once, however many steps await it.
        case ToTopic(t) => Resource.eval(ensureTopic(t, create = false, o.timeout, target, topology, shell).recoverWith {
            case Failure.BadInput(_) if o.createTopic => shell.info(s"replay: dry run: topic $t does not exist; --create-topic would create it").as(0)
          }.memoize)
        case _ => Resource.pure[IO, IO[Int]](IO.pure(0))
      }
      dryCheck = (o.to, o.from) match {
        case (ToTopic(t), FromTopic(_, _)) if o.delivery.dryRun => RegistryClient.resource(target, o.timeout).map(Some(_)).map(_.map((t, _)))
        case _ => Resource.pure[IO, Option[(String, RegistryClient)]](None)
      }
      code <- (partitionCount, RegistryClient.resource(source, o.timeout), dryCheck).tupled.use { case (partitions, sourceRegistry, dry) =>
        val sourceSchemas = new SchemaResolver(sourceRegistry)
        val check = dry.map { case (t, targetRegistry) =>
          new DryRunCheck(sourceSchemas, targetRegistry, strategy, t, sameRegistry(source, target))
        }
        for {
          records <- (o.from, o.to) match {
            // A missing target says so before a file's lines are checked against the target's subjects.
            case (FromFile(f), ToTopic(t)) => partitions >> fromFile(f, t, o.input, o.timeout, target, strategy, topology.schemaFiles, shell)
            case (FromFile(_), ToFile(_, _)) => IO.raiseError(fileToFile) // refused while parsing
            // Likewise before the source is read: a failure raised inside the running streams was also reported by them,
            // a raw exception line before bankops' own.
            case (FromTopic(spec, filter), _) =>
              partitions.as(fromTopic(spec, filter, o.limit, o.to, o.delivery.dryRun, o.timeout, source, sourceSchemas, target, strategy))
          }
          code <- o.to match {
            case ToFile(f, overwrite) =>
              toFile(f, overwrite, o.from, o.limit, o.delivery.dryRun, o.timeout, source, sourceSchemas, shell).map(ReplayOutcome(_, None))
            case ToTopic(t) =>
              TopicTarget.send(o.delivery, t, partitions, records, target, shell, check, file = Some(o.from).collect { case FromFile(f) => f })
          }
        } yield code
      }
    } yield code

  /** The target topic's partition count, creating it first with --create-topic. */
  private def ensureTopic(topic: String, create: Boolean, timeout: FiniteDuration, target: ConnectionSettings, topology: Topology,
                          shell: Shell): IO[Int] =
    KafkaClients.partitionCount(target.kafka, topic, timeout, Some(Doing.writing(List(topic)))).handleErrorWith {
      case Failure.BadInput(_) if create =>
        topology.topic(topic).fold(
          IO.raiseError[Int](Failure.BadInput(s"target topic $topic does not exist and ${topology.file} does not declare it"))) { spec =>
          val only = topology.copy(topics = List(spec))
          TopicSync.session(target.kafka, timeout)(admin =>
            TopicSync.plan(admin, only, deleteUnlisted = false).flatMap(p =>
              // A refused creation (the authorizer, the broker's policy) is the error, not a wait for a topic that never comes.
              admin.execute(p, validateOnly = false).flatMap(_.flatMap(_.error).headOption.traverse_(IO.raiseError[Unit])) >>
                TopicSync.confirm(admin, only))) >>
            shell.info(s"replay: created topic $topic from ${topology.file}").as(spec.partitions)
        }
      case Failure.BadInput(_) =>
        IO.raiseError[Int](Failure.BadInput(s"target topic $topic does not exist (--create-topic creates it from the topology)"))
      case other => IO.raiseError[Int](other)
    }

  /** Topic records as they go out: values re-framed when the target registry differs. */
  private def sameRegistry(source: ConnectionSettings, target: ConnectionSettings): Boolean =
    source.registry.url.value.stripSuffix("/") == target.registry.url.value.stripSuffix("/")

  private def fromTopic(spec: ReadSpec, filter: RecordFilter, limit: Option[Long], to: To, dryRun: Boolean, timeout: FiniteDuration,
                        source: ConnectionSettings, sourceSchemas: SchemaResolver, target: ConnectionSettings, strategy: SubjectNameStrategy)
      : Stream[IO, Chunk[Outgoing]] = {
    val decoder = new RecordDecoder(sourceSchemas, plainValues = filter.where.nonEmpty)
    // A dry run registers nothing on the target: DryRunCheck looks the schemas up instead.
    val translator: Resource[IO, Option[IdTranslator]] = to match {
      case ToTopic(t) if !sameRegistry(source, target) && !dryRun =>
        RegistryClient.resource(target, timeout).map(c => Some(new IdTranslator(sourceSchemas, c, strategy, t)))
      case _ => Resource.pure(None)
    }
    Stream.resource((TopicReader.open(source.kafka, spec, timeout), translator).tupled).flatMap { case ((_, records), translate) =>
      val chunks = records.chunks.evalMap { chunk =>
        val kept = if (filter.isEmpty) IO.pure(chunk)
        else decoder.decodeChunk(chunk).map(ds => chunk.zip(ds).filter(p => filter.selects(p._2.envelope)).map(_._1))
        kept.flatMap(c => translate.traverse_(_.prepare(c.toList.map(_.value))).as(c)).map(_.map { r =>
          val value = translate.fold(r.value)(t => if (r.value == null) null else t(r.value))
          Outgoing(r.partition, r.offset, r.key, value, r.headers.toArray.toList.map(h => h.key -> h.value), Some(r.timestamp).filter(_ >= 0))
        })
      }
      // Polling the source overlaps with sending the previous batch.
      limit.fold(chunks)(n => chunks.flatMap(Stream.chunk).take(n).chunks).prefetchN(2)
    }
  }

  /** Every line parsed and encoded before anything is sent; with errors, exit 2 naming line and field (unless --no-strict).
    * Two passes over the file, neither holding it: the first checks every line and keeps only counts and the first
    * errors, the second encodes the lines again as they are sent (with --no-strict, saying each line it leaves out). A
    * file changed between the passes is refused, and a line that fails only in the second (the file or the target's
    * subjects changed meanwhile) stops a strict replay naming it.
    */
  private def fromFile(file: os.Path, topic: String, input: FileInput, timeout: FiniteDuration, target: ConnectionSettings,
                       strategy: SubjectNameStrategy,
                       known: Map[String, SchemaFile], shell: Shell): IO[Stream[IO, Chunk[Outgoing]]] =
    for {
      dir <- input.schemaDir.traverse(d => IO.blocking(SchemaFiles.load(d)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_)))))
      encoded = (registry: RegistryClient) => {
        val encoder = new FileEncoder(registry, strategy, topic, dir, known, input.exact)
        // Parsed and encoded a batch of lines on each core, in order. Deferred: parEvalMap calls this function on the one
        // fiber that feeds it, so parsing outside the effect ran on one core.
        TextFile.stream(file).filter(_._1.trim.nonEmpty).chunks.parEvalMap(2)(chunk =>
          IO.defer {
            val parsed = chunk.map { case (text, n) => RecordLine.parse(text, n).map(_ -> n).left.map(e => s"$file:$n: $e") }
            encoder.encodeAll(parsed.collect { case Right((l, _)) => l }).map { values =>
              val encoded = values.iterator
              parsed.map(_.flatMap { case (l, n) =>
                encoded.next().left.map(e => s"$file:$n: $e").map(value =>
                  Outgoing(l.partition.getOrElse(-1), l.offset.getOrElse(n - 1L), l.key.orNull, value, l.headers, l.timestamp, line = n))
              })
            }
          })
      }
      // A path that is no readable file is named as TextFile names it (exit 2) before its size and time are taken.
      stamp <- IO.blocking(TextFile.problem(file, whole = false).fold(fileStamp(file))(p => throw Failure.BadInput(p)))
      checked <- RegistryClient.resource(target, timeout).use(registry =>
        // Counted a chunk at a time with no effect per line (an effect per line was a tenth of this pass's CPU).
        encoded(registry).compile.fold((0L, 0L, Vector.empty[String])) { (counts, chunk) =>
          chunk.foldLeft(counts) {
            case ((lines, bad, first), Left(e)) => (lines + 1, bad + 1, if (first.size < 10) first :+ e else first)
            case ((lines, bad, first), Right(_)) => (lines + 1, bad, first)
          }
        })
      (lines, bad, first) = checked
      _ <-
      (first.traverse_(shell.info) >>
        IO.raiseError(Failure.BadInput(s"$file: $bad of $lines lines cannot be sent; nothing was sent"))).whenA(bad > 0 && input.strict)
      _ <- IO.blocking(fileStamp(file)).flatMap(now =>
        IO.raiseError(Failure.BadInput(s"$file changed while it was being checked; nothing was sent")).whenA(now != stamp))
    } yield Stream.resource(RegistryClient.resource(target, timeout)).flatMap(registry =>
      encoded(registry).evalMap { chunk =>
        val left = chunk.collect { case Left(e) => e }
        val sent = IO.pure(chunk.collect { case Right(o) => o })
        if (left.isEmpty) sent
        // --no-strict: each line left out is said as its chunk is sent, in the pass that sends.
        else if (!input.strict) left.traverse_(e => shell.warn(s"skipped $e")) >> sent
        else IO.raiseError(Failure.BadInput(s"${left(0)} (the file or the target's subjects changed while it was being sent)"))
      }.unchunks.chunkN(1000))

  /** What tells a file changed between two reads of it: its size and modification time. */
  private def fileStamp(file: os.Path): (Long, Long) =
    (java.nio.file.Files.size(file.toNIO), java.nio.file.Files.getLastModifiedTime(file.toNIO).toMillis)

  /** Topic to file: lossless JSON lines, written to a temporary file and moved into place only when complete. */
  private def toFile(file: os.Path, overwrite: Boolean, from: From, limit: Option[Long], dryRun: Boolean, timeout: FiniteDuration,
                     source: ConnectionSettings,
                     sourceSchemas: SchemaResolver, shell: Shell): IO[ExitCode] = from match {
    case FromFile(_) => IO.raiseError(fileToFile) // refused while parsing
    case FromTopic(spec, filter) =>
      // Each value as a tree, printed by circe as it always was: inspect's direct writer escapes a few control
      // characters otherwise (\b, \f, U+007F to U+009F), and the file's bytes stay what they were.
      val decoder = new RecordDecoder(sourceSchemas)
      TopicReader.open(source.kafka, spec, timeout).use { case (_, records) =>
        // Decoded and rendered to UTF-8 two chunks at a time; limited, checked and written in order.
        val lines = records.chunks.parEvalMap(2)(c =>
          decoder.decodeChunk(c).map { decoded =>
            val sb = new java.lang.StringBuilder(512)
            decoded.zip(c).filter(p => filter.selects(p._1.envelope)).map { case (d, r) =>
              sb.setLength(0)
              RecordLine.write(d.envelope.copy(raw = Option(r.value)), d.envelope.value, sb)
              (sb.toString.getBytes(java.nio.charset.StandardCharsets.UTF_8), r)
            }
          }).flatMap(Stream.chunk)
        // A line --from-file could not read back is refused here, not found there (the partial file is removed); checked
        // after --limit, so a record the run would not write cannot end it.
        val limited = limit.fold(lines)(lines.take).chunks.evalMap(c =>
          IO(c.map { case (line, r) =>
            if (line.length > LineReader.MaxLineBytes)
              throw Failure.BadInput(LineReader.refusal(s"${r.topic}-${r.partition}@${r.offset}", line.length.toLong, "a line") +
                s"; nothing written to $file (--to before it, or leave it out)")
            line
          }))
        def summary(headline: String, n: Long) = StepSummary.write(shell,
          StepSummary("replay", headline, StepSummary.Outcome.Ok,
            facts = List("source topics" -> spec.topics.mkString(", "), "file" -> file.toString, "records" -> n.toString)))
        if (dryRun) limited.map(_.size.toLong).compile.foldMonoid.flatMap(n =>
          shell.info(s"replay: dry run: $n records read; nothing written") >>
            summary(s"dry run: $n records read; nothing written", n)).as(Exit.Ok)
        else {
          val writing = OutputFile.writeStream("--to-file", file, overwrite)(out =>
            limited.evalMap(c => IO.blocking { c.foreach { l => out.write(l); out.write('\n') }; c.size.toLong }).compile.foldMonoid)
          // Ctrl-C cancels the writing, which removes the partial file: a file that is there is whole.
          Interrupt.onCtrlC.use(ctrlC => IO.race(ctrlC, writing)).flatMap {
            case Left(_) =>
              shell.info(s"replay: interrupted (Ctrl-C): nothing written to $file (it is written only when complete)").as(Exit.Interrupted)
            case Right(n) => shell.info(s"replay: $n records written to $file") >>
                summary(s"$n records written to ${file.last}", n).as(Exit.Ok)
          }
        }
      }
  }

  /** Replay says what it did as it goes (progress and summary lines on stderr, resume offsets when it stops early): the
    * report is its outcome, for the exit code and for callers that compose it.
    */
  val job: Job[Options, ReplayOutcome] = Job(
    "replay",
    "Replay records topic to topic (also across clusters and registries), file to topic, or topic to file, losslessly.",
    "bankops replay --from-topic commands --from ago:1h --to-file incident.jsonl",
    opts
  )(replay, (_, outcome) => Shown.exit(outcome.code))
}

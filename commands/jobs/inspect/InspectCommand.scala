package bankops.jobs.inspect

import cats.effect.{IO, Ref}
import cats.syntax.all._
import com.monovore.decline.Opts
import fs2.Stream

import scala.concurrent.duration._

import bankops.base.{Exit, Flags, Interrupt, Job, Rendered, Shell, Shown}
import bankops.flags.{ConnectionOpts, SourceOpts}
import bankops.services.config.{ConnectionFlags, Connections}
import bankops.services.kafka.{KafkaClients, ReadPlan, ReadSpec, StopAt, TopicReader}
import bankops.services.records.{Decoded, RecordDecoder, RecordFilter}
import bankops.services.registry.{RegistryClient, SchemaResolver}

/** `bankops inspect`: read and decode records on topics; read-only, no consumer group, nothing committed. */
object InspectCommand {

  final case class Options(flags: ConnectionFlags, spec: ReadSpec, limit: Option[Long], filter: RecordFilter,
                           format: Option[InspectFormat], fields: Option[FieldSelection], strict: Boolean, timeout: FiniteDuration)

  private val allPartitions =
    Opts.flag("all-partitions", "With --key: read every partition, not only the one Kafka's default partitioner gives the key.").orFalse

  private val opts: Opts[Options] = (
    ConnectionOpts.opts,
    SourceOpts.spec(SourceOpts.topics("topic", "Topic to read (repeatable).")),
    SourceOpts.limit,
    SourceOpts.filter,
    allPartitions,
    InspectFormat.opts,
    FieldSelection.opts,
    Opts.flag("strict", "Exit 1 if any record does not decode.").orFalse,
    Flags.timeout(30.seconds)
  ).tupled.mapValidated { case (flags, spec, limit, filter, all, format, fields, strict, timeout) =>
    if (all && filter.key.isEmpty) "--all-partitions goes with --key (without --key every partition is read)".invalidNel
    else if (all && spec.partitions.isDefined)
      "--partition and --all-partitions exclude each other (the first reads only the partitions named)".invalidNel
    else {
      // A key names its partition (when --partition does not): only that one is read.
      val keyed = if (all || spec.partitions.isDefined) spec else spec.copy(byKey = filter.key)
      Options(flags = flags, spec = keyed, limit = limit, filter = filter, format = format, fields = fields, strict = strict, timeout = timeout)
        .validNel
    }
  }

  /** Which partition a keyed read chose, per topic. */
  private def keyedLines(o: Options, plan: ReadPlan): List[String] =
    o.spec.byKey.toList.flatMap(k =>
      plan.partitionCounts.toList.sorted.map { case (topic, count) =>
        val p = plan.ranges.keys.filter(_.topic == topic).map(_.partition).mkString(", ")
        s"inspect: key '$k' goes to partition $p of $topic (of $count, by Kafka's default partitioner); reading only that one " +
          "(--all-partitions reads all)"
      })

  /** What a read came to (its records went to stdout as they were read): the counts, and how many partitions were read. */
  final case class Report(stats: InspectStats, partitions: Int, outputClosed: Boolean = false)

  /** Reads, decodes, filters and writes the records to stdout as they come, until the end asked for, the limit or Ctrl-C. */
  def read(o: Options, shell: Shell): IO[Report] = {
    val format = InspectFormat.resolve(o.format, shell)
    for {
      settings <- Connections.load(o.flags, shell)
      stats <- Ref.of[IO, InspectStats](InspectStats.empty)
      closed <- Ref.of[IO, Boolean](false)
      // Lines reach it as UTF-8 bytes, encoded where they are rendered (in parallel), not on the one writing thread.
      writer = new java.io.BufferedOutputStream(shell.out, 1 << 16)
      opened = (Interrupt.onCtrlC, TopicReader.open(settings.kafka, o.spec, o.timeout, o.limit), RegistryClient.resource(settings, o.timeout)).tupled
      plan <- opened.use { case (ctrlC, (plan, records), registry) =>
        val decoder = new RecordDecoder(new SchemaResolver(registry), Decoded.needsPlainValues(o.filter, o.fields.isDefined))
        val progress = plan.total.filter(_ => shell.stderrIsTerminal).fold(Stream.empty.covaryAll[IO, Unit])(total =>
          Stream.awakeEvery[IO](1.second).evalMap(_ =>
            stats.get.flatMap(s =>
              IO.blocking {
                shell.err.print(f"\rread ${s.read}%d of $total%d (${if (total == 0) 100.0 else s.read * 100.0 / total}%.0f%%)"); shell.err.flush()
              })))
        // Decode, filter, render and count in parallel per chunk; limit and write in order.
        keyedLines(o, plan).traverse_(shell.info) >>
          // Said once the start positions are fixed: a record produced after this line is shown.
          shell.info(s"inspect: following ${o.spec.topics.mkString(", ")} (${plan.ranges.size} partitions); Ctrl-C ends")
            .whenA(o.spec.stop == StopAt.Never) >>
          records.chunks
            .parEvalMap(2)(chunk =>
              decoder.decodeChunk(chunk).map { decoded =>
                val sb = new java.lang.StringBuilder(512)
                val lines = new ChunkLines.Builder(decoded.size)
                var i = 0
                while (i < decoded.size) {
                  val d = decoded(i)
                  if (o.filter.accepts(d.envelope)) { sb.setLength(0); InspectFormat.renderTo(format, d, o.fields, sb); lines.add(i, sb) }
                  i += 1
                }
                (decoded, lines.result(InspectStats.tally(decoded, lines.count)))
              })
            .evalMap { case (decoded, lines) =>
              stats.modify { s0 =>
                val (s, written, limitReached) = InspectStats.step(s0, decoded, lines, o.limit)
                (s, (written, limitReached))
              }.flatMap { case (written, limitReached) =>
                // A PrintStream keeps its write errors to itself: a reader that went away (`| head`) would have every
                // record read and counted as shown. Its lines are not counted, and reading stops.
                if (written == 0) IO.pure(limitReached)
                else
                  IO.blocking { lines.lines.iterator.take(written).foreach(writer.write); writer.flush(); shell.out.checkError() }.flatMap(failed =>
                    if (failed) closed.set(true) >> stats.update(s => s.copy(shown = s.shown - written)).as(true) else IO.pure(limitReached))
              }
            }
            .takeThrough(stop => !stop)
            .concurrently(progress)
            .interruptWhen(ctrlC.attempt)
            .compile.drain
            .guarantee(IO.blocking { shell.err.print("\r\u001b[K"); shell.err.flush() }.whenA(shell.stderrIsTerminal && plan.total.isDefined))
            .as(plan)
      }.adaptError(KafkaClients.unreachable(settings.kafka, o.timeout))
      s <- stats.get
      outputClosed <- closed.get
    } yield Report(s, plan.ranges.size, outputClosed)
  }

  /** The one renderer: after the records, the counts, a keyed read that found nothing, filters that matched no field,
    * the job summary; exit 1 with --strict when a record did not decode.
    */
  def render(o: Options, r: Report): Shown = {
    val Report(s, partitions, outputClosed) = r
    Shown(None,
      Rendered.note(s"inspect: ${s.summary}; $partitions partition${if (partitions == 1) "" else "s"} read") ++
        Rendered.note("inspect: standard output was closed (its reader went away, or it could not be written): stopped reading")
          .when(outputClosed) ++
        Rendered.note(s"inspect: nothing matched in the key's partition; a producer with another partitioner (librdkafka's " +
          "default hashes keys with CRC32) puts keys elsewhere: --all-partitions reads all").when(o.spec.byKey.isDefined && s.shown == 0) ++
        Rendered.all(s.filterWarnings(o.filter, o.fields).map(Rendered.warning)) ++
        Rendered.summary(s.stepSummary(o.spec.topics, o.strict, partitions)),
      if (outputClosed) Exit.OutputClosed else if (o.strict && s.undecodable > 0) Exit.Difference else Exit.Ok)
  }

  val job: Job[Options, Report] = Job(
    "inspect",
    "Read and decode Avro records on topics (Confluent wire format) as JSON lines or readable blocks, with positions and filters.",
    "bankops inspect --topic commands --from ago:15m --where amount>1000",
    opts
  )(read, render)
}

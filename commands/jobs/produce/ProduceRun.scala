package bankops.jobs.produce

import cats.effect.{IO, Ref, Resource}
import cats.effect.std.Queue
import cats.syntax.all._
import fs2.{Chunk, Stream}
import io.circe.Json
import org.apache.avro.Schema
import org.apache.kafka.clients.producer.RecordMetadata
import org.apache.kafka.common.errors.RecordTooLargeException

import java.time.Instant
import java.util.UUID

import bankops.base.{Failure, Interrupt, Shell, TextFile}
import bankops.jobs.produce.ProduceCommand.{Options, Values}
import bankops.services.avro.AvroJsonRead
import bankops.services.config.ConnectionSettings
import bankops.services.contracts.Topology
import bankops.services.kafka.{ChunkProducer, Denied, Doing, KafkaClients}
import bankops.services.registry.{RegistryClient, RegistryError, SchemaResolver}

/** The effectful shell of `produce`: the writer schema from the registry, the topic's partitions from Kafka, then each
  * value checked and encoded before it is sent; the first bad one stops the run (what was sent before it stays sent).
  */
private[produce] object ProduceRun {
  /** Chunks handed to the producer and not yet reported, at most (each at most a batch of stdin's lines). */
  private val InFlightChunks = 4

  private type Encoded = Either[String, (Outbound, Option[UUID])]

  def apply(o: Options, settings: ConnectionSettings, topology: Topology, shell: Shell, onAck: Acked => IO[Unit],
            onChecked: Outbound => IO[Unit]): IO[ProduceReport] = {
    val strategy = o.strategy.getOrElse(topology.subjectNameStrategy)
    // Ctrl-C is heard from the start: while the registry and the cluster are asked, it ends the run with nothing sent.
    Interrupt.onCtrlC.use(run(o, settings, topology, shell, onAck, onChecked, strategy, _))
  }

  private def run(o: Options, settings: ConnectionSettings, topology: Topology, shell: Shell, onAck: Acked => IO[Unit],
                  onChecked: Outbound => IO[Unit], strategy: bankops.services.contracts.SubjectNameStrategy, ctrlC: IO[Unit]): IO[ProduceReport] = {
    for {
      // What needs no service is checked first: the record type, and a value given on the command line.
      choice <- if (o.values == Values.Tombstone) IO.pure(None) else orBad(RecordChoice.choose(topology, o.topic, o.record)).map(Option(_))
      single <- commandLineValue(o.values)
      report <- RegistryClient.resource(settings, o.timeout).use { registry =>
        val prepared = for {
          schema <- choice.traverse(c =>
            writerSchema(new SchemaResolver(registry), strategy.subject(o.topic, c.fullName), c.fullName, o.schemaVersion))
          partitions <- KafkaClients.partitionCount(settings.kafka, o.topic, o.timeout, Some(Doing.writing(List(o.topic))))
          _ <- o.partition.filter(_ >= partitions).traverse_(p =>
            orBad(Left(s"--partition $p: topic ${o.topic} has $partitions partition(s), 0 to ${partitions - 1}")))
        } yield schema
        // Ctrl-C while the registry and the cluster are asked ends the run before anything is sent; later, send hears it.
        IO.race(ctrlC, prepared).flatMap {
          case Left(_) => IO.pure(ProduceReport(0L, 0L, interrupted = true))
          case Right(schema) => send(o, values(o, shell, single, choice.zip(schema)), settings, shell, onAck, onChecked, ctrlC)
              .adaptError(KafkaClients.denied(settings.kafka, Doing.writing(List(o.topic))))
        }
      }.adaptError(KafkaClients.unreachable(settings.kafka, o.timeout))
      _ <- orBad(Left("no value on standard input: give --value JSON, --value @FILE, or JSON lines on standard input"))
        .whenA(o.values == Values.Stdin && !report.interrupted && report.acked == 0 && report.checked == 0)
    } yield report
  }

  private def orBad[A](e: Either[String, A]): IO[A] = IO.fromEither(e.left.map(Failure.BadInput(_)))

  /** The value of `--value JSON` or `--value @FILE`, parsed, with where it came from. */
  private def commandLineValue(values: Values): IO[Option[(Json, String)]] = values match {
    case Values.Given(text) => orBad(ValueText.parse(text).left.map(e => s"--value: $e")).map(j => Some(j -> "--value"))
    case Values.FromFile(f) =>
      IO.blocking(TextFile.read(f, "--value @")).flatMap(orBad)
        .flatMap(text => orBad(ValueText.parse(text).left.map(e => s"$f: $e"))).map(j => Some(j -> f.toString))
    case _ => IO.pure(None)
  }

  /** Every value to send, checked and encoded, in order. */
  private def values(o: Options, shell: Shell, single: Option[(Json, String)], schema: Option[(RecordChoice, (WriterSchema, Schema))])
      : Stream[IO, Encoded] = o.values match {
    case Values.Tombstone => Stream.emit(Right(Outbound("--tombstone", o.topic, o.partition, o.key, o.headers, None, None) -> None))
    case Values.Stdin => stdin(shell, o, schema.map(_._1.fullName)).map(_.flatMap { case (text, n) =>
        ValueText.parse(text).left.map(e => s"stdin:$n: $e").flatMap(encoded(o, schema, _, s"stdin:$n"))
      })
    case _ => Stream.emits(single.toList).map { case (json, source) => encoded(o, schema, json, source) }
  }

  /** A value checked against its writer schema and encoded; a bank command without an id gets a fresh one. */
  private def encoded(o: Options, schema: Option[(RecordChoice, (WriterSchema, Schema))], json: Json, source: String): Encoded =
    schema.toRight(s"$source: no record type").flatMap { case (choice, (writer, avro)) =>
      val (value, fresh) = ValueText.withId(json, choice.fullName)
      AvroJsonRead.framed(value, avro, writer.id).left.map(e => s"$source: $e").map { bytes =>
        val key = o.key.orElse(ValueText.key(value, choice.key, Instant.now()))
        (Outbound(source, o.topic, o.partition, key, o.headers, Some(writer), Some(bytes)), fresh)
      }
    }

  private def stdin(shell: Shell, o: Options, record: Option[String]): Stream[IO, Either[String, (String, Int)]] =
    Stream.exec(shell.info(s"produce: reading ${record.getOrElse("values")} for ${o.topic} as JSON, one value per line " +
        "(Ctrl-D ends, Ctrl-C stops; or give --value)").whenA(shell.stdinIsTerminal)) ++
      InputLines.of(shell.in).filter(_.forall(_._1.trim.nonEmpty))

  /** The subject's latest version (or `version`), which must hold `record`; exit 2 naming the subject otherwise. */
  private def writerSchema(resolver: SchemaResolver, subject: String, record: String, version: Option[Int]): IO[(WriterSchema, Schema)] = {
    def bad(message: String) = orBad[(WriterSchema, Schema)](Left(message))
    val registry = resolver.client.describe
    resolver.subjectVersion(subject, version.fold("latest")(_.toString)).flatMap {
      case Some((_, s)) if s.getFullName != record => bad(s"subject $subject holds ${s.getFullName}, not $record")
      case Some((v, s)) => IO.pure((WriterSchema(subject, v.id, record), s))
      case None => resolver.client.versions(subject).recover { case RegistryError(404, _, _) => Nil }.flatMap {
          case Nil => bad(s"subject $subject does not exist on the registry at $registry (register it with `bankops schemas register`)")
          case vs => bad(s"subject $subject has no version ${version.getOrElse(0)} (it has ${vs.mkString(", ")})")
        }
    }
  }

  /** Each chunk's valid values sent (or, with --dry-run, shown), and reported in order as they are acknowledged; the
    * first invalid value ends the run with exit 2, saying how many were sent before it. A few chunks are handed over
    * while the first one's acknowledgements are awaited: waiting for each before taking the next made every chunk a
    * round trip of idle time (30,000 values of 4 KiB: 34 s, against 10). Ctrl-C stops taking values: what was handed
    * to the producer is still awaited and reported.
    */
  private def send(o: Options, values: Stream[IO, Encoded], settings: ConnectionSettings, shell: Shell,
                   onAck: Acked => IO[Unit], onChecked: Outbound => IO[Unit], ctrlC: IO[Unit]): IO[ProduceReport] = {
    val producer: Resource[IO, Option[ChunkProducer]] =
      if (o.dryRun) Resource.pure(None) else ChunkProducer.resource(settings.kafka, o.timeout).map(Some(_))
    producer.use { producer =>
      for {
        acked <- Ref.of[IO, Long](0L)
        checked <- Ref.of[IO, Long](0L)
        interrupted <- Ref.of[IO, Boolean](false)
        // The first record Kafka did not take, or the first report that failed (stdout gone).
        refused <- Ref.of[IO, Option[Long => Throwable]](None)
        // Chunks handed over, in order; a fiber of their own reports each one's acknowledgements as they come.
        inFlight <- Queue.bounded[IO, Option[IO[Option[Long => Throwable]]]](InFlightChunks)
        reporter <- Stream.fromQueueNoneTerminated(inFlight).evalMap(_.attempt.flatMap(r =>
            refused.update(_.orElse(r.fold(e => Some((_: Long) => e), identity))))).compile.drain.start
        // Every chunk handed over reported first, so the count a failure names is final.
        reported <- (inFlight.offer(None) >> reporter.joinWithUnit).memoize
        failIfRefused = reported >> (refused.get, acked.get).flatMapN((f, n) => f.traverse_(r => IO.raiseError[Unit](r(n))))
        // Chunks as they come (a pipe's lines arrive many at a time): one round trip per chunk, not per line.
        _ <- values.chunks.evalMap { chunk =>
          val (good, rest) = chunk.toList.span(_.isRight)
          val records = good.collect { case Right((ob, _)) => ob }
          val fresh = good.collect { case Right((ob, Some(id))) => shell.info(s"produce: ${ob.source}: no id given, so it has the fresh id $id") }
          val step = producer.fold(records.traverse_(onChecked) >> checked.update(_ + records.size)) { p =>
            p.watched(handOver(p, records, acked, onAck)).flatMap(report => inFlight.offer(Some(p.watched(report)))) >>
              refused.get.flatMap(_.traverse_(_ => failIfRefused))
          }
          (fresh.sequence_ >> step).uncancelable >> rest.collectFirst { case Left(e) => e }.traverse_ { e =>
            failIfRefused >> acked.get.flatMap(a =>
              IO.raiseError(Failure.BadInput(
                  if (a == 0) s"$e; nothing was sent" else s"$e; the $a record(s) before it were sent, nothing after it")))
          }
        }.interruptWhen((ctrlC >> interrupted.set(true)).attempt).compile.drain.guarantee(reported)
        _ <- failIfRefused
        report <- (acked.get, checked.get, interrupted.get).mapN(ProduceReport(_, _, _))
      } yield report
    }
  }

  /** Hands the records to the producer. The IO it gives awaits them and reports every acknowledged one in order, those
    * after a refused one included (the producer sent them too), and gives the first record Kafka did not take, if any:
    * exit 3 naming it (2 when too large), with the count of all acknowledged.
    */
  private def handOver(producer: ChunkProducer, records: List[Outbound], acked: Ref[IO, Long], onAck: Acked => IO[Unit])
      : IO[IO[Option[Long => Throwable]]] = {
    val results = new Array[Either[Exception, RecordMetadata]](records.size)
    producer.sendEach(Chunk.from(records.map(_.toRecord)))((i, m, e) => results(i) = if (e != null) Left(e) else Right(m)).map(_ >>
        records.zip(results).traverse_ {
          case (ob, Right(m)) => acked.update(_ + 1) >> onAck(Acked(ob, m.partition, m.offset))
          case _ => IO.unit
        }.as(records.zip(results).collectFirst[Long => Throwable] {
          // Too large for the broker or the producer: the record is at fault, not the service.
          case (ob, Left(e: RecordTooLargeException)) =>
            all => Failure.BadInput(s"${ob.source}: Kafka refused the record: ${e.getMessage}; $all record(s) in all were acknowledged")
          // The authorizer refused: `apply` names the operation and the identity.
          case (_, Left(e)) if Denied.isRefusal(e) => _ => e
          case (ob, Left(e)) =>
            all => Failure.Unavailable(s"${ob.source}: Kafka did not take the record: ${e.getMessage}; $all record(s) in all were acknowledged", e)
        }))
  }
}

package bankops.jobs.latency

import cats.effect.{Deferred, IO, Ref}
import cats.syntax.all._
import fs2.Chunk
import org.apache.kafka.clients.producer.ProducerRecord

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import scala.concurrent.duration._

import bankops.base.Failure
import bankops.services.avro.WireFormat
import bankops.services.bank.{Atype, BankRules, ConfirmAccountCreation, ConfirmMoneyTransfer}
import bankops.services.kafka.{ChunkProducer, Denied}

/** Sends the probes through the normal command path, as a client of the bank would, and times their answers. */
private[latency] final class Prober(producer: ChunkProducer, commandsTopic: String, creationId: Int, transferId: Int, watcher: ProbeWatcher,
                                    timeout: FiniteDuration) {
  private val creations = WireFormat.Writer[ConfirmAccountCreation](creationId)
  private val transfers = WireFormat.Writer[ConfirmMoneyTransfer](transferId)

  /** Completed when Kafka's authorizer refuses a send: every wait for an answer then ends with that refusal. */
  private val refusal = Deferred.unsafe[IO, Throwable]

  /** `wait`, unless a send is refused first (then that refusal is the error). */
  private def unlessRefused[A](wait: IO[A]): IO[A] = IO.race(refusal.get.flatMap(IO.raiseError[A]), wait).map(_.merge)

  /** Sends one command keyed by its id; the error of a send that failed, once the broker answered. */
  private def send(id: UUID, value: Array[Byte]): IO[Ref[IO, Option[Throwable]]] =
    Ref[IO].of(Option.empty[Throwable]).flatTap { error =>
      val record = new ProducerRecord(commandsTopic, id.toString.getBytes(UTF_8), value)
      val failed = new java.util.concurrent.atomic.AtomicReference[Throwable]()
      producer.sendEach(Chunk.singleton(record))((_, _, e) => if (e != null) failed.set(e))
        .flatMap(acked =>
          (acked >> error.set(Option(failed.get)) >> Option(failed.get).filter(Denied.isRefusal).traverse_(refusal.complete)).start).void
    }

  /** Opens an account for the probes and returns its iban; exit 1 when the handler does not answer or refuses. The
    * opening is set-up, not a probe: it is often a just-started handler's first command (its first transaction, schema
    * look-up and database connection), which on a busy machine outlasts a probe's timeout, so it gets [[Prober.Opening]].
    */
  def createAccount: IO[String] =
    for {
      id <- IO(UUID.randomUUID())
      waits <- watcher.expect(id, balanceChange = false)
      answer = waits._1
      value <- IO.fromEither(creations(ConfirmAccountCreation(id, Atype.Auto)).leftMap(e => new IllegalStateException(e.message)))
      _ <- send(id, value)
      opening = timeout max Prober.Opening
      arrival <- unlessRefused(answer.get).timeoutTo(opening,
        IO.raiseError(Failure.Difference(
            s"no answer on the feedback topic within ${opening.toSeconds} s to the probe account's creation: is a " +
              s"command handler consuming $commandsTopic? " +
              "(`bankops sandbox status`, `bankops groups describe bankops-command-handler`)")))
      iban <- arrival.value.hcursor.get[String]("iban").toOption match {
        case Some(i) if arrival.record.endsWith("AccountCreationConfirmed") => IO.pure(i)
        case _ => IO.raiseError(Failure.Difference(s"the handler refused the probe account: ${Prober.reason(arrival)}"))
      }
    } yield iban

  private def until[A](wait: IO[A], refused: IO[Unit]): IO[Option[A]] =
    IO.race(wait, refused).map(_.left.toOption).timeoutTo(timeout, IO.none)

  /** The bytes of probe `id`'s deposit to `iban`, as [[probe]] sends them. */
  def deposit(iban: String)(id: UUID): Array[Byte] =
    transfers(ConfirmMoneyTransfer(id, "x", Prober.Amount, BankRules.Cash, iban, ProbeWatcher.description(id)))
      .fold(e => throw new IllegalStateException(e.message), identity)

  /** One deposit of a cent from cash to `iban`, timed until each measure shows it or `timeout` passes. */
  def probe(seq: Int, step: Int, iban: String, db: Option[BalancePoller]): IO[ProbeResult] =
    for {
      id <- IO(UUID.randomUUID())
      waits <- watcher.expect(id, balanceChange = true)
      (answer, balance) = waits
      shown <- db.traverse(_.expectDeposit(Prober.Amount))
      value <- IO.fromEither(transfers(ConfirmMoneyTransfer(id, "x", Prober.Amount, BankRules.Cash, iban, ProbeWatcher.description(id)))
          .leftMap(e => new IllegalStateException(e.message)))
      sentAt <- IO.realTimeInstant
      start <- IO(System.nanoTime())
      sendError <- send(id, value)
      // A refused deposit changes no balance: the other waits end with its feedback.
      refused = answer.get.flatMap(a => if (a.record.endsWith("MoneyTransferFailed")) IO.unit else IO.never)
      seen <- unlessRefused((answer.get.map(Option(_)).timeoutTo(timeout, IO.none), balance.flatTraverse(b => until(b.get, refused)),
          shown.flatTraverse(d => until(d.get, refused))).parTupled)
      (feedback, changed, db0) = seen
      _ <- watcher.forget(id)
      error <- sendError.get
    } yield {
      def ms(nanos: Long) = (nanos - start) / 1e6
      val latencies: Map[Measure, Double] =
        (List[(Measure, Option[Double])](Measure.Feedback -> feedback.map(a => ms(a.nanos)), Measure.Balance -> changed.map(a => ms(a.nanos))) ++
          db.map(_ => Measure.Db -> db0.map(ms(_))).toList).collect { case (m, Some(t)) => m -> t }.toMap
      val expected = Measure.Feedback :: Measure.Balance :: db.map(_ => Measure.Db).toList
      val outcome = (error, feedback) match {
        case (Some(e), _) => ProbeOutcome.Failed(s"not sent: ${e.getMessage}")
        case (_, Some(a)) if a.record.endsWith("MoneyTransferFailed") => ProbeOutcome.Failed(Prober.reason(a))
        case _ if expected.forall(latencies.contains) => ProbeOutcome.Confirmed
        case _ => ProbeOutcome.TimedOut(expected.filterNot(latencies.contains))
      }
      ProbeResult(seq, step, id, sentAt, latencies, outcome)
    }
}

private[latency] object Prober {
  /** A cent a probe: the account's balance counts the probes. */
  val Amount = 1L

  /** The least wait for the probe account's opening, whatever `--timeout` says. */
  val Opening: FiniteDuration = 30.seconds

  private def reason(a: Arrival): String =
    a.value.hcursor.get[String]("reason").getOrElse(s"${a.record} without a reason")
}

package bankops.jobs.capture

import scala.concurrent.duration._

import bankops.services.config.ConnectionFlags
import bankops.services.contracts.{SubjectNameStrategy, TopologyChoice}
import bankops.services.kafka.{StartAt, StopAt}
import bankops.services.records.RecordFilter

/** What `capture` reads (a window, narrowed by inspect's filters), which groups' offsets it keeps, and where the archive
  * goes; every field but the archive at its flag's default, so it is built by name or refined with `copy`.
  */
private[capture] final case class CaptureOptions(archive: ArchiveOut, flags: ConnectionFlags = ConnectionFlags(),
                                                 window: CaptureWindow = CaptureWindow(), filter: RecordFilter = RecordFilter(Nil, None, Nil),
                                                 groups: List[String] = Nil, accounts: AccountsAsked = AccountsAsked(), redact: List[String] = Nil,
                                                 skipUnredactable: Boolean = false, topology: TopologyChoice = TopologyChoice(None, None),
                                                 strategy: Option[SubjectNameStrategy] = None, timeout: FiniteDuration = 30.seconds,
                                                 transactions: AtOpenTransaction = AtOpenTransaction.Stop) {

  /** The filters as they were given, for the manifest; an operand that repeats a value --redact masked (`--key IBAN`
    * with --redact iban), and any `--where` operand of a redacted field, is masked there too.
    */
  def filterText(masked: String => Boolean = _ => false): List[String] = {
    def m(s: String) = if (masked(s)) Redaction.Mask else s
    filter.records.map(r => s"--record $r") ++ filter.key.map(k => s"--key ${m(k)}") ++
      filter.where.map(w =>
        s"--where ${w.path.mkString(".")}${w.op}${if (redact.contains(w.path.mkString("."))) Redaction.Mask else m(w.operand)}") ++
      filter.headers.map(h => s"--header ${h.key}=${m(h.value)}")
  }

  /** The values the filters name: masked in the manifest where a record's masked field held one. */
  def operands: Set[String] = (filter.key ++ filter.where.map(_.operand) ++ filter.headers.map(_.value)).toSet
}

/** The topics captured (none: the topology's) and where each starts and stops, parsed and as given (for the manifest). */
private[capture] final case class CaptureWindow(topics: List[String] = Nil, from: StartAt = StartAt.Beginning, to: StopAt = StopAt.End,
                                                fromText: String = "beginning", toText: String = "end")

/** The archive to write (`--out`), whether an existing one is replaced, and whether it is only estimated (`--dry-run`). */
private[capture] final case class ArchiveOut(file: os.Path, overwrite: Boolean = false, dryRun: Boolean = false)

/** Accounts whose `balance` rows and whole BalanceChanged chains are kept too: named, or those a `balances validate -o json`
  * run flagged; the chains are read from `balanceTopic` (default: the topology's topic of BalanceChanged).
  */
private[capture] final case class AccountsAsked(ibans: List[String] = Nil, findings: Option[os.Path] = None, balanceTopic: Option[String] = None) {
  def isEmpty: Boolean = ibans.isEmpty && findings.isEmpty
}

/** What a capture with `--to end` does where a transaction is open at the window's end (`--open-transactions`): a
  * read_committed reader cannot pass its first record (the last stable offset).
  */
private[capture] sealed trait AtOpenTransaction
private[capture] object AtOpenTransaction {

  /** Stop at the last stable offset and say which transaction held the end, and what lies past it (the default). */
  case object Stop extends AtOpenTransaction

  /** Wait, at most `atMost`, for the transactions open at the cut to end (commit or abort), then read to the cut: what
    * committed is kept, what aborted is not. Still open then: stopped at the last stable offset, and said.
    */
  final case class Wait(atMost: FiniteDuration) extends AtOpenTransaction

  /** Read past the last stable offset up to the high watermark (read_uncommitted): those records are kept and marked in
    * the manifest (each partition's last stable offset and how many lie past it); they may yet abort.
    */
  case object Read extends AtOpenTransaction

  /** Kafka's default `transaction.timeout.ms`: a hung producer's transaction is aborted after it. */
  val DefaultWait: FiniteDuration = 60.seconds

  /** A bound no broker's transaction timeout reaches: past it, a wait is a mistake. */
  val MaxWait: FiniteDuration = 24.hours

  def parse(s: String): Either[String, AtOpenTransaction] = s match {
    case "stop" => Right(Stop)
    case "read" => Right(Read)
    case "wait" => Right(Wait(DefaultWait))
    case w if w.startsWith("wait:") =>
      bankops.base.DurationText.parse(w.drop(5)).filterOrElse(_ <= MaxWait,
        s"'$w' waits longer than ${MaxWait.toHours}h (the broker aborts a transaction after its transaction.max.timeout.ms, 15 minutes " +
          "by default)").map(Wait(_))
    case other => Left(s"'$other' is not stop, wait, wait:DURATION or read")
  }
}

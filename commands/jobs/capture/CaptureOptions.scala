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
                                                 strategy: Option[SubjectNameStrategy] = None, timeout: FiniteDuration = 30.seconds) {

  /** The filters as they were given, for the manifest. */
  def filterText: List[String] =
    filter.records.map(r => s"--record $r") ++ filter.key.map(k => s"--key $k") ++
      filter.where.map(w => s"--where ${w.path.mkString(".")}${w.op}${w.operand}") ++
      filter.headers.map(h => s"--header ${h.key}=${h.value}")
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

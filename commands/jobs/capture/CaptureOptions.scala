package bankops.jobs.capture

import scala.concurrent.duration.FiniteDuration

import bankops.services.config.ConnectionFlags
import bankops.services.contracts.{SubjectNameStrategy, TopologyChoice}
import bankops.services.kafka.{StartAt, StopAt}
import bankops.services.records.RecordFilter

/** What `capture` reads (topics in a window, narrowed by inspect's filters), which groups' offsets it keeps, and where
  * the archive goes.
  */
private[capture] final case class CaptureOptions(flags: ConnectionFlags, topics: List[String], from: StartAt, to: StopAt, fromText: String,
                                                 toText: String,
                                                 filter: RecordFilter, filterText: List[String], groups: List[String], accounts: AccountsAsked,
                                                 redact: List[String], out: os.Path, overwrite: Boolean,
                                                 dryRun: Boolean, topology: TopologyChoice, strategy: Option[SubjectNameStrategy],
                                                 timeout: FiniteDuration, skipUnredactable: Boolean = false)

/** Accounts whose `balance` rows and whole BalanceChanged chains are kept too: named, or those a `balances validate -o json`
  * run flagged; the chains are read from `balanceTopic` (default: the topology's topic of BalanceChanged).
  */
private[capture] final case class AccountsAsked(ibans: List[String], findings: Option[os.Path], balanceTopic: Option[String]) {
  def isEmpty: Boolean = ibans.isEmpty && findings.isEmpty
}

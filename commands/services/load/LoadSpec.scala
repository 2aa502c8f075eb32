package bankops.services.load

import bankops.services.bank.BankTopics
import bankops.services.contracts.SubjectNameStrategy

/** A load's records: their kind and the bank's topics they go to (`heartbeat` and `commands`), how commands are made
  * (learning accounts from the `feedback` topic, with `failShare` of the transfers failing), the first heartbeat's beat,
  * whether missing subjects are registered. Built by name: every field but the kind and the seed has a default.
  */
final case class LoadSpec(kind: LoadKind, seed: Long, bank: BankTopics = BankTopics(), learn: Boolean = true, startBeat: Long = 1L,
                          failShare: Double = 0.1, register: Boolean = false, strategy: SubjectNameStrategy = SubjectNameStrategy.TopicRecord) {
  def beats: Boolean = kind != LoadKind.Commands
  def commands: Boolean = kind != LoadKind.Heartbeats
  def learning: Boolean = commands && learn
  /** The topics it writes to. */
  def topics: List[String] = (if (beats) List(bank.heartbeat) else Nil) ++ (if (commands) List(bank.commands) else Nil)
}

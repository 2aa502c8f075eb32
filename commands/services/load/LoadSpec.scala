package bankops.services.load

import bankops.services.contracts.SubjectNameStrategy

/** A load's records: their kind and topics, how commands are made (learning accounts from `feedbackTopic`, with
  * `failShare` of the transfers failing), the first heartbeat's beat, whether missing subjects are registered.
  */
final case class LoadSpec(kind: LoadKind, heartbeatTopic: String, commandsTopic: String, feedbackTopic: String, learn: Boolean,
                          startBeat: Long, failShare: Double, register: Boolean, seed: Long, strategy: SubjectNameStrategy) {
  def beats: Boolean = kind != LoadKind.Commands
  def commands: Boolean = kind != LoadKind.Heartbeats
  def learning: Boolean = commands && learn
  /** The topics it writes to. */
  def topics: List[String] = (if (beats) List(heartbeatTopic) else Nil) ++ (if (commands) List(commandsTopic) else Nil)
}

package bankops.jobs.doctor

import bankops.services.bank.BankRules

/** Whether the bank's size limits fit one another (pure): the largest record the handler publishes on each topic must
  * fit its producer (`max.request.size`) and that topic (`max.message.bytes`). The largest BalanceChanged copies a
  * description and an outside `to` of [[BankRules.MaxTextBytes]] each; the largest dead letter is
  * [[BankRules.MaxDeadLetterBytes]] and the dead-letter headers.
  */
private[doctor] object BankLimits {
  val BalanceChangedMax: Long = 2L * BankRules.MaxTextBytes + 1024
  val DeadLetterMax: Long = BankRules.MaxDeadLetterBytes.toLong + 16 * 1024

  /** `topics`: (topic, the largest record the handler writes there, its max.message.bytes if known). The problems, if any. */
  def problems(maxRequestSize: Long, topics: List[(String, Long, Option[Long])]): List[String] =
    topics.flatMap { case (topic, largest, limit) =>
      Option.when(largest > maxRequestSize)(s"$topic takes records up to $largest bytes but max.request.size is $maxRequestSize").toList ++
        limit.filter(_ < largest).map(l => s"$topic has max.message.bytes $l, under the $largest bytes its records may take")
    }
}

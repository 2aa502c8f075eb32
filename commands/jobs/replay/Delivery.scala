package bankops.jobs.replay

import scala.concurrent.duration.FiniteDuration

/** How replay sends to a target topic, resolved from its flags: --dry-run, --rate, --keep-partition,
  * --keep-timestamps (also implied by --exact), --verify and --timeout.
  */
private[replay] final case class Delivery(dryRun: Boolean, rate: Option[Int], keepPartition: Boolean, keepTimestamps: Boolean, verify: Boolean,
                                          timeout: FiniteDuration)

package bankops.jobs.replay

import scala.concurrent.duration._

/** How replay sends to a target topic, resolved from its flags: --dry-run, --rate, --keep-partition,
  * --keep-timestamps (also implied by --exact), --verify and --timeout.
  */
private[replay] final case class Delivery(dryRun: Boolean = false, rate: Option[Int] = None, keepPartition: Boolean = false,
                                          keepTimestamps: Boolean = false, verify: Boolean = false, timeout: FiniteDuration = 30.seconds)

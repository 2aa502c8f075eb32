package bankops.services.load

import scala.concurrent.duration._

/** Heartbeat's pacing at a set rate: it follows the clock, not the tick count, so a late tick is made up
  * and the rate holds over the run; never more than a second's worth at once.
  */
object Pacing {
  /** How often to wake: every 1/rate s, but no more often than every 10 ms (then several records a tick). */
  def tick(rate: Int): FiniteDuration = (1000000L / rate).max(10000L).micros

  /** Records to make `elapsed` after the start with `sent` made so far: the first at once, then what the clock says is due. */
  def due(elapsed: FiniteDuration, rate: Int, sent: Long): Long = {
    val byNow = ((elapsed.toNanos / 1e9) * rate).toLong + 1
    (byNow - sent) max 0L min (rate.toLong max 1L)
  }
}

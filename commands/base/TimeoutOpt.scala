package bankops.base

import cats.syntax.all._
import com.monovore.decline.Opts

/** `--timeout SECONDS`: how long a job waits for a service before exit 3. */
object TimeoutOpt {
  import scala.concurrent.duration._

  def opts(default: Int): Opts[FiniteDuration] =
    Opts.option[Int]("timeout", s"Seconds to wait for a service before giving up with exit 3 (default $default).", metavar = "SECONDS")
      .mapValidated(s => if (s > 0) s.validNel else s"--timeout must be positive, not $s".invalidNel)
      .withDefault(default).map(_.seconds)
}

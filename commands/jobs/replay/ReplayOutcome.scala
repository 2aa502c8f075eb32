package bankops.jobs.replay

import cats.effect.ExitCode

/** How a replay ended: its exit code and, for a topic target that sent, what was read and acknowledged. */
final case class ReplayOutcome(code: ExitCode, delivered: Option[DeliveryReport])

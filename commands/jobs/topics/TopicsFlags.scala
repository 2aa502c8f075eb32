package bankops.jobs.topics

import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Flags, OutputFormat}
import bankops.flags.{ConnectionOpts, TopologyFlags}
import bankops.services.config.ConnectionFlags
import bankops.services.contracts.TopologyChoice

/** The flags every `topics` subcommand takes: connection, topology, output and timeout. */
private[topics] final case class TopicsFlags(flags: ConnectionFlags, topology: TopologyChoice, output: Option[OutputFormat], timeout: FiniteDuration)

private[topics] object TopicsFlags {
  val common: Opts[TopicsFlags] =
    (ConnectionOpts.opts, TopologyFlags.choice, OutputFormat.opts, Flags.timeout(30.seconds)).mapN(TopicsFlags.apply)
}

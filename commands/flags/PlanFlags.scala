package bankops.flags

import cats.syntax.all._
import com.monovore.decline.Opts

import scala.concurrent.duration._

import bankops.base.{Flags, OutputFormat}
import bankops.services.plan.{LocalCompatibility, SchemaFlow}

/** The flags `plan`, `apply` and `schemas` share: where the topology and the registry are, and the level to set. */
object PlanFlags {

  val level: Opts[Option[String]] =
    Opts.option[String]("compatibility", s"Set each subject's compatibility level: ${LocalCompatibility.Levels.mkString(", ")}.", metavar = "LEVEL")
      .mapValidated(s => LocalCompatibility.parseLevel(s).toValidatedNel).orNone

  val common: Opts[SchemaFlow.Common] =
    (ConnectionOpts.opts, TopologyFlags.choice, TopologyFlags.strategy, OutputFormat.opts, Flags.timeout(30.seconds)).mapN(
      (flags, topology, strategy, output, timeout) =>
        SchemaFlow.Common(flags = flags, topology = topology, strategy = strategy, output = output, timeout = timeout))
}

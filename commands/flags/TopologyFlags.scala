package bankops.flags

import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.Flags
import bankops.flags.Arguments._
import bankops.services.contracts.{SubjectNameStrategy, TopologyChoice}

/** `--topology FILE`, defaulting to `schemas/topology.json` of the checkout, `--environment NAME` and `--subject-strategy`. */
object TopologyFlags {

  val choice: Opts[TopologyChoice] = (
    Opts.option[String]("topology", "Topology file (default schemas/topology.json); record types come from the .avsc files next to it.",
      metavar = "FILE").map(os.Path(_, os.pwd)).orNone,
    (Opts.option[String]("environment",
      s"Take the topology's override for this environment (env ${TopologyChoice.EnvironmentVariable}), " +
        "e.g. single-broker for a one-broker cluster.", metavar = "NAME") orElse
      Opts.env[String](TopologyChoice.EnvironmentVariable, "The topology's environment.")).orNone
  ).mapN((file, environment) => TopologyChoice(file = file, environment = environment))

  val strategy: Opts[Option[SubjectNameStrategy]] =
    Flags.option[SubjectNameStrategy]("subject-strategy",
      "Subject naming: TopicRecordNameStrategy (default), TopicNameStrategy or RecordNameStrategy; overrides the topology's.").orNone
}

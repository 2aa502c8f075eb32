package bankops.services.contracts

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Failure, Flags, Shell}

/** Which topology: its file, and the environment whose override its topics take (none: the topology's own). */
final case class TopologyChoice(file: Option[os.Path], environment: Option[String])

/** `--topology FILE`, defaulting to `schemas/topology.json` of the checkout, and `--environment NAME`. */
object TopologyOpts {
  val EnvironmentVariable = "BANKOPS_TOPOLOGY_ENVIRONMENT"

  val choice: Opts[TopologyChoice] = (
    Opts.option[String]("topology", "Topology file (default schemas/topology.json); record types come from the .avsc files next to it.",
      metavar = "FILE").map(os.Path(_, os.pwd)).orNone,
    (Opts.option[String]("environment",
      s"Take the topology's override for this environment (env $EnvironmentVariable), " +
        "e.g. single-broker for a one-broker cluster.", metavar = "NAME") orElse
      Opts.env[String](EnvironmentVariable, "The topology's environment.")).orNone
  ).mapN(TopologyChoice.apply)

  val strategy: Opts[Option[SubjectNameStrategy]] =
    Flags.option[SubjectNameStrategy]("subject-strategy",
      "Subject naming: TopicRecordNameStrategy (default), TopicNameStrategy or RecordNameStrategy; overrides the topology's.").orNone

  def load(choice: TopologyChoice, shell: Shell): IO[Topology] =
    IO.blocking(TopologyFile.load(choice.file.getOrElse(shell.home / "schemas" / "topology.json")))
      .map(_.flatMap(t => choice.environment.fold[Either[String, Topology]](Right(t))(t.in)))
      .flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))
}

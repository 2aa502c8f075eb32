package bankops.services.contracts

import cats.effect.IO

import bankops.base.{Failure, Shell}

/** Which topology: its file, and the environment whose override its topics take (none: the topology's own). */
final case class TopologyChoice(file: Option[os.Path], environment: Option[String])

object TopologyChoice {
  /** The variable `--environment` falls back to (`flags/TopologyFlags`). */
  val EnvironmentVariable = "BANKOPS_TOPOLOGY_ENVIRONMENT"

  /** The chosen file (default `schemas/topology.json` of the checkout), in the chosen environment. */
  def load(choice: TopologyChoice, shell: Shell): IO[Topology] =
    IO.blocking(TopologyFile.load(choice.file.getOrElse(shell.home / "schemas" / "topology.json")))
      .map(_.flatMap(t => choice.environment.fold[Either[String, Topology]](Right(t))(t.in)))
      .flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))
}

package bankops.topology

import cats.effect.IO
import com.monovore.decline.Opts

import bankops.cli.{Failure, Shell}

/** `--topology FILE`, defaulting to `schemas/topology.json` of the checkout. */
object TopologyOpts {
  val file: Opts[Option[os.Path]] =
    Opts.option[String]("topology", "Topology file (default schemas/topology.json); record types come from the .avsc files next to it.", metavar = "FILE")
      .map(os.Path(_, os.pwd)).orNone

  def load(flag: Option[os.Path], shell: Shell): IO[Topology] =
    IO.blocking(TopologyFile.load(flag.getOrElse(shell.home / "schemas" / "topology.json")))
      .flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))
}

package bankops.services.contracts

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Failure, Shell}

/** `--topology FILE`, defaulting to `schemas/topology.json` of the checkout. */
object TopologyOpts {
  val file: Opts[Option[os.Path]] =
    Opts.option[String]("topology", "Topology file (default schemas/topology.json); record types come from the .avsc files next to it.",
      metavar = "FILE")
      .map(os.Path(_, os.pwd)).orNone

  val strategy: Opts[Option[SubjectNameStrategy]] =
    Opts.option[String]("subject-strategy",
      "Subject naming: TopicRecordNameStrategy (default), TopicNameStrategy or RecordNameStrategy; overrides the topology's.",
      metavar = "TopicRecordNameStrategy|TopicNameStrategy|RecordNameStrategy")
      .mapValidated(s => SubjectNameStrategy.parse(s).toValidatedNel).orNone

  def load(flag: Option[os.Path], shell: Shell): IO[Topology] =
    IO.blocking(TopologyFile.load(flag.getOrElse(shell.home / "schemas" / "topology.json")))
      .flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))
}

package bankops.jobs.latency

import cats.effect.IO

import bankops.base.{Failure, OutputFile}

/** Where the chart goes, checked before the run (an hour's experiment must not fail at its last step), and written by
  * the rule every file bankops writes follows ([[OutputFile]]).
  */
private[latency] object ChartFile {
  def check(path: os.Path, overwrite: Boolean): IO[LatencyChart.Format] =
    IO.fromEither(LatencyChart.Format.of(path).left.map(Failure.BadInput(_))).flatTap(_ => OutputFile.check("--chart", path, overwrite))

  def write(path: os.Path, overwrite: Boolean, bytes: Array[Byte]): IO[Unit] = OutputFile.writeBytes("--chart", path, overwrite)(bytes)
}

package bankops.jobs.latency

import cats.effect.IO

import bankops.base.Failure

/** Where the chart goes, checked before the run (an hour's experiment must not fail at its last step). */
object ChartFile {
  def check(path: os.Path): IO[LatencyChart.Format] = IO.blocking {
    val format = LatencyChart.Format.of(path).left.map(Failure.BadInput(_))
    format.flatMap { f =>
      if (os.isLink(path)) Left(Failure.BadInput(s"--chart $path is a symbolic link: give the file itself"))
      else if (os.exists(path) && !os.isFile(path)) Left(Failure.BadInput(s"--chart $path exists and is not a regular file"))
      else if (!os.isDir(path / os.up)) Left(Failure.BadInput(s"--chart $path: directory ${path / os.up} does not exist"))
      else if (!java.nio.file.Files.isWritable((path / os.up).toNIO)) Left(Failure.BadInput(s"--chart $path: directory ${path / os.up} is not writable"))
      else Right(f)
    }
  }.flatMap(IO.fromEither(_))

  /** Written whole or not at all: into a sibling file, then moved over the name. */
  def write(path: os.Path, bytes: Array[Byte]): IO[Unit] = IO.blocking {
    val partial = path / os.up / s".${path.last}.partial"
    try {
      os.write.over(partial, bytes)
      os.move(partial, path, replaceExisting = true, atomicMove = true)
    } finally os.remove(partial, checkExists = false)
    ()
  }
}

package bankops.base

import cats.effect.{IO, Resource}
import io.circe.Json

/** A declared signal that a long-running process is ready (`handler --ready-file`), for a supervisor or a test to
  * wait on instead of reading its log: a small JSON file naming the process (`pid`) and what it serves, written whole
  * (a partial file moved into place) once ready and removed when it stops. One a killed process left behind names
  * another pid, so a reader compares the pid with the process it started.
  */
object ReadyFile {

  /** Before starting: the path can be written (a new name or a regular file; never a directory, a link or a device). */
  def check(flag: String, path: os.Path): IO[Unit] = OutputFile.check(flag, path, overwrite = true)

  /** Written while the resource is held (with this process's pid beside `fields`), removed on release. */
  def held(flag: String, path: os.Path, fields: (String, Json)*): Resource[IO, Unit] = {
    val content = Json.obj(("pid" -> Json.fromLong(ProcessHandle.current.pid)) +: fields: _*)
    Resource.make(OutputFile.writeText(flag, path, overwrite = true)(content.noSpaces + "\n"))(_ =>
      // Only our own file: another process may have taken the path since.
      IO.blocking(if (pidIn(path).contains(ProcessHandle.current.pid)) os.remove(path, checkExists = false): Unit).handleError(_ => ()))
  }

  /** The pid the file at `path` names, if it holds a ready file's JSON. */
  def pidIn(path: os.Path): Option[Long] =
    scala.util.Try(os.read(path)).toOption.flatMap(io.circe.parser.parse(_).toOption).flatMap(_.hcursor.get[Long]("pid").toOption)

  /** Whether the process `pid` has said it is ready at `path`. */
  def readyAt(path: os.Path, pid: Long): IO[Boolean] = IO.blocking(os.isFile(path) && pidIn(path).contains(pid))
}

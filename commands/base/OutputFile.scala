package bankops.base

import cats.effect.{IO, Resource}

import java.io.{BufferedOutputStream, BufferedWriter, OutputStream, OutputStreamWriter, Writer}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{AccessDeniedException, Files, LinkOption}
import java.nio.file.attribute.PosixFilePermissions

/** A file a job writes for the operator (replay --to-file, groups --save-to, charts and exports to come).
  * The operator's path is never destroyed: only a new name in an existing writable directory, or an existing
  * regular file when `overwrite` is asked for, is written; never a directory, a symlink, a device or a pipe.
  * The contents go to a hidden `.NAME.partial` beside it and are moved into place only when complete, so a failure
  * or Ctrl-C leaves the old file (or nothing) and no partial file.
  */
object OutputFile {

  /** The flag every job that writes a file offers, named in the refusal. */
  val OverwriteFlag = "--overwrite"

  /** What a path is now, as far as writing to it goes: the pure refusal below decides from this. */
  sealed trait Found
  object Found {
    case object Missing extends Found
    case object RegularFile extends Found
    case object Directory extends Found
    case object Link extends Found
    /** A device, pipe or socket. */
    case object Special extends Found
  }

  /** The parent directory of a new name. */
  final case class Parent(exists: Boolean, isDirectory: Boolean, writable: Boolean)

  /** Why `path` may not be written (exit 2 naming flag and path), or None; pure, so every case is tested without a disk. */
  def refusal(flag: String, path: os.Path, found: Found, parent: Parent, overwrite: Boolean): Option[String] = found match {
    case Found.Directory => Some(s"$flag $path is a directory: give a file name inside it; nothing written")
    case Found.Link => Some(s"$flag $path is a symbolic link: give the file itself; nothing written")
    case Found.Special => Some(s"$flag $path is a device, pipe or socket, not a regular file; nothing written")
    case Found.RegularFile if !overwrite => Some(s"$flag $path already exists: $OverwriteFlag replaces it; nothing written")
    case _ if !parent.exists => Some(s"$flag $path: no such directory ${path / os.up}; nothing written")
    case _ if !parent.isDirectory => Some(s"$flag $path: ${path / os.up} is not a directory; nothing written")
    case _ if !parent.writable => Some(s"$flag $path: directory ${path / os.up} is not writable; nothing written")
    case _ => None
  }

  /** The hidden file the contents go to before they are moved into place. */
  def partialOf(path: os.Path): os.Path = path / os.up / s".${path.last}.partial"

  /** Looks at the disk, without following a final symbolic link. */
  def found(path: os.Path): Found = {
    val nio = path.toNIO
    if (Files.isSymbolicLink(nio)) Found.Link
    else if (!Files.exists(nio, LinkOption.NOFOLLOW_LINKS)) Found.Missing
    else if (Files.isDirectory(nio, LinkOption.NOFOLLOW_LINKS)) Found.Directory
    else if (Files.isRegularFile(nio, LinkOption.NOFOLLOW_LINKS)) Found.RegularFile
    else Found.Special
  }

  def parent(path: os.Path): Parent = {
    val p = (path / os.up).toNIO
    Parent(Files.exists(p), Files.isDirectory(p), Files.isWritable(p))
  }

  /** Exit 2 unless `path` may be written; call before any work, so a run is not wasted on an unwritable path. */
  def check(flag: String, path: os.Path, overwrite: Boolean): IO[Unit] =
    IO.blocking(refusal(flag, path, found(path), parent(path), overwrite)).flatMap(_.fold(IO.unit)(m => IO.raiseError(Failure.BadInput(m))))

  /** Writes `path` with `body` (given the partial file's stream) through the partial file; checked again just before
    * the move, since the run may have been long. On error or cancellation the partial file is removed and `path` is untouched.
    */
  def writeStream[A](flag: String, path: os.Path, overwrite: Boolean)(body: OutputStream => IO[A]): IO[A] = {
    val partial = partialOf(path)
    val open = Resource.make(IO.blocking(openPartial(flag, path, partial)))(s => IO.blocking(s.close()))
    check(flag, path, overwrite) >>
      open.use(s => body(s).flatTap(_ => IO.blocking(s.flush())))
        .flatTap(_ => check(flag, path, overwrite) >> IO.blocking(os.move(partial, path, replaceExisting = true, atomicMove = true)))
        .guaranteeCase(outcome => if (outcome.isSuccess) IO.unit else IO.blocking(Files.deleteIfExists(partial.toNIO)).void)
  }

  /** Text through a UTF-8 writer (flushed before the move). */
  def write[A](flag: String, path: os.Path, overwrite: Boolean)(body: Writer => IO[A]): IO[A] =
    writeStream(flag, path, overwrite) { s =>
      val w = new BufferedWriter(new OutputStreamWriter(s, UTF_8))
      body(w).flatTap(_ => IO.blocking(w.flush()))
    }

  def writeText(flag: String, path: os.Path, overwrite: Boolean)(text: String): IO[Unit] =
    write(flag, path, overwrite)(w => IO.blocking(w.write(text)))

  def writeBytes(flag: String, path: os.Path, overwrite: Boolean)(bytes: Array[Byte]): IO[Unit] =
    writeStream(flag, path, overwrite)(s => IO.blocking(s.write(bytes)))

  // A partial left by a killed run (kill -9 skips the cleanup) is ours to replace, but only when it is a regular file:
  // a link planted there would otherwise be written through.
  private def openPartial(flag: String, path: os.Path, partial: os.Path): OutputStream = {
    found(partial) match {
      case Found.RegularFile => Files.delete(partial.toNIO)
      case Found.Missing => ()
      case _ => throw Failure.BadInput(s"$flag $path: $partial exists and is not a regular file; remove it; nothing written")
    }
    try {
      val nio = Files.createFile(partial.toNIO, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")))
      new BufferedOutputStream(Files.newOutputStream(nio))
    } catch {
      case e: AccessDeniedException => throw Failure.BadInput(s"$flag $path: cannot create ${e.getFile}: permission denied; nothing written")
    }
  }
}

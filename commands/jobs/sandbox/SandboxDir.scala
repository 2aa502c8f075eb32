package bankops.jobs.sandbox

import bankops.base.Failure

/** `--sandbox-dir` is the sandbox's own: `up` makes it or takes one it made before (or an empty one), and `down --wipe`
  * deletes only a directory that holds a sandbox. A typo such as `--sandbox-dir ~` then never fills or deletes a home.
  */
private[sandbox] object SandboxDir {

  /** What marks a directory as a sandbox's: the files `up` writes first. */
  def isSandbox(layout: SandboxLayout): Boolean = os.isFile(layout.secretsFile) || os.isFile(layout.dir / "state.json")

  /** Before `up` writes anything: a directory or a new name, empty or a sandbox's, and writable. */
  def checkForUp(layout: SandboxLayout): Either[Failure, Unit] = {
    val dir = layout.dir
    notADirectory(dir).map(what => Left(Failure.BadInput(s"--sandbox-dir $dir $what"))).getOrElse(
      if (os.isDir(dir) && os.list(dir).nonEmpty && !isSandbox(layout))
        Left(Failure.BadInput(s"--sandbox-dir $dir is not empty and holds no sandbox (no secrets.json); give a new or empty directory"))
      else writable(dir))
  }

  /** What a path that is there but is no directory of its own is: a link (even to a sandbox: `down --wipe` would stop
    * its services and remove the link only), a file, or something else (a device, a pipe).
    */
  private def notADirectory(dir: os.Path): Option[String] =
    if (os.isLink(dir)) Some("is a symbolic link; give the directory itself")
    else if (os.isFile(dir)) Some("is a file, not a directory")
    else if (os.exists(dir) && !os.isDir(dir)) Some("is not a directory")
    else None

  /** Made (with its parents) and written to: a read-only place is named now, not by a service failing later. */
  private def writable(dir: os.Path): Either[Failure, Unit] =
    try {
      os.makeDir.all(dir)
      val probe = dir / s".write-check-${ProcessHandle.current().pid()}"
      os.write.over(probe, "")
      os.remove(probe)
      Right(())
    } catch {
      case e: java.io.IOException =>
        Left(Failure.BadInput(s"--sandbox-dir $dir cannot be written (${Option(e.getMessage).getOrElse(e.getClass.getSimpleName)})"))
    }

  /** `down --wipe` removes the directory only when it is a sandbox's. */
  def checkForWipe(layout: SandboxLayout): Either[Failure, Unit] = {
    val dir = layout.dir
    val refused = notADirectory(dir).orElse(Option.when(os.exists(dir) && !isSandbox(layout))("holds no sandbox (no secrets.json)"))
    refused.toLeft(()).left.map(what => Failure.BadInput(s"--sandbox-dir $dir $what: nothing stopped or removed"))
  }
}

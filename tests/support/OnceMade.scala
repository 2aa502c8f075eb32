package bankops.support

/** Files a suite makes once and hands each test a copy of: stores made by keytool, whose every run is a JVM's start on
  * the cores the sandbox's tests share. A test that changes its copy changes no other test's.
  */
final class OnceMade(make: os.Path => Unit) {
  private var made: Option[os.Path] = None

  /** A fresh copy of the files, made first if they are not yet (a making that failed is tried again next time). */
  def copy(): os.Path = synchronized {
    val dir = made.getOrElse {
      val d = os.temp.dir()
      try make(d)
      catch { case e: Throwable => os.remove.all(d); throw e }
      made = Some(d)
      d
    }
    val copy = os.temp.dir()
    os.list(dir).foreach(os.copy.into(_, copy))
    copy
  }

  /** Removes the files, if they were made. */
  def remove(): Unit = synchronized { made.foreach(os.remove.all); made = None }
}

package bankops.base

import scala.util.Try

/** Compiled into the sbt meta-build too (project/plugins.sbt): the build writes [[lineOf]] beside the classpath, and the
  * launcher prints that file for `--version` without starting a JVM.
  */
object Version {
  val current: String = "0.1.0"

  /** The commit these classes were built from and when: the build writes them into the jar (`bankops/build.properties`);
    * a scala-cli run has none.
    */
  final case class Build(commit: String, built: String)

  object Build {

    /** `bankops/build.properties` as the build writes it. */
    def read(in: java.io.InputStream): Build = {
      val props = new java.util.Properties
      try props.load(in)
      finally in.close()
      Build(props.getProperty("commit", "unknown"), props.getProperty("built", "unknown"))
    }
  }

  lazy val build: Option[Build] = Try(Build.read(getClass.getResourceAsStream("/bankops/build.properties"))).toOption

  /** What `bankops --version` prints for a build (or none). */
  def lineOf(build: Option[Build]): String = build.fold(s"bankops $current")(b => s"bankops $current (commit ${b.commit}, built ${b.built})")

  def line: String = lineOf(build)
}

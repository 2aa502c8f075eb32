package bankops.base

import scala.util.Try

object Version {
  val current: String = "0.1.0"

  /** The commit these classes were built from and when: the build writes them into the jar (`bankops/build.properties`);
    * a scala-cli run has none.
    */
  final case class Build(commit: String, built: String)

  lazy val build: Option[Build] = Try {
    val props = new java.util.Properties
    val in = getClass.getResourceAsStream("/bankops/build.properties")
    try props.load(in)
    finally in.close()
    Build(props.getProperty("commit", "unknown"), props.getProperty("built", "unknown"))
  }.toOption

  /** What `bankops --version` prints. */
  def line: String = build.fold(s"bankops $current")(b => s"bankops $current (commit ${b.commit}, built ${b.built})")
}

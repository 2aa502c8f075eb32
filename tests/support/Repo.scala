package bankops.support

object Repo {
  /** The checkout: sbt passes it to the forked test JVM; scala-cli runs tests from it. */
  val root: os.Path = sys.props.get("bankops.home").map(os.Path(_)).getOrElse(os.pwd)
}

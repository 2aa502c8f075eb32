package bankops.base

/** The `//> using` directives of `project.scala`, read strictly.
  *
  * Shared by the sbt build (compiled into the meta-build, so it must stay
  * Scala 2.12 and 2.13 source compatible and use only the standard library)
  * and by the tests. Anything it does not know is an error naming the line:
  * a directive the sbt build silently ignored would make the two builds differ.
  */
final case class Dependency(organization: String, name: String, version: String, scalaSuffix: Boolean)

final case class ProjectDirectives(
    scalaVersion: String,
    dependencies: List[Dependency],
    testDependencies: List[Dependency],
    scalacOptions: List[String],
    testScalacOptions: List[String],
    javaOptions: List[String],
    mainClass: Option[String]
)

object ProjectDirectives {
  private val Prefix = "//> using "

  /** Parses the whole text of a `project.scala`. */
  def parse(text: String): Either[String, ProjectDirectives] = {
    val lines = text.split("\n", -1).toList.zipWithIndex
    val directives = lines.collect { case (line, i) if line.trim.startsWith("//>") => (line.trim, i + 1) }
    val empty = ProjectDirectives("", Nil, Nil, Nil, Nil, Nil, None)
    directives
      .foldLeft[Either[String, ProjectDirectives]](Right(empty)) { case (acc, (line, lineNo)) =>
        acc.flatMap(d => applyLine(d, line, lineNo))
      }
      .flatMap(d => if (d.scalaVersion.isEmpty) Left("project.scala: no `//> using scala` directive") else Right(d))
  }

  private def applyLine(d: ProjectDirectives, line: String, lineNo: Int): Either[String, ProjectDirectives] = {
    def fail(msg: String): Left[String, ProjectDirectives] = Left(s"project.scala:$lineNo: $msg: $line")
    if (!line.startsWith(Prefix)) fail("not a `//> using` directive")
    else
      tokens(line.substring(Prefix.length)) match {
        case Left(msg) => fail(msg)
        case Right(Nil) => fail("empty directive")
        case Right(key :: values) =>
          def one: Either[String, String] = values match {
            case v :: Nil => Right(v)
            case _ => Left(s"project.scala:$lineNo: `$key` takes exactly one value: $line")
          }
          def deps: Either[String, List[Dependency]] =
            if (values.isEmpty) Left(s"project.scala:$lineNo: `$key` needs a value: $line")
            else sequence(values.map(v => dependency(v).left.map(m => s"project.scala:$lineNo: $m: $line")))
          key match {
            case "scala" =>
              one.flatMap(v => if (d.scalaVersion.nonEmpty) fail("`scala` given twice") else Right(d.copy(scalaVersion = v)))
            case "dep" | "deps" | "dependency" | "dependencies" =>
              deps.map(ds => d.copy(dependencies = d.dependencies ++ ds))
            case "test.dep" | "test.deps" | "test.dependency" | "test.dependencies" =>
              deps.map(ds => d.copy(testDependencies = d.testDependencies ++ ds))
            case "option" | "options" | "scalacOption" | "scalacOptions" =>
              Right(d.copy(scalacOptions = d.scalacOptions ++ values))
            case "test.option" | "test.options" | "test.scalacOption" | "test.scalacOptions" =>
              Right(d.copy(testScalacOptions = d.testScalacOptions ++ values))
            case "javaOpt" | "javaOpts" | "javaOption" | "javaOptions" =>
              Right(d.copy(javaOptions = d.javaOptions ++ values))
            case "mainClass" =>
              one.map(v => d.copy(mainClass = Some(v)))
            case other => fail(s"unknown directive `$other` (the sbt build does not know it)")
          }
      }
  }

  /** `org::name:version` (Scala) or `org:name:version` (Java); nothing else. */
  def dependency(coordinates: String): Either[String, Dependency] = {
    val scala = coordinates.contains("::")
    val parts = coordinates.replace("::", ":").split(":", -1).toList
    val valid = "[A-Za-z0-9._-]+".r
    parts match {
      case List(org, name, version) if List(org, name, version).forall(p => valid.pattern.matcher(p).matches) =>
        if (coordinates.indexOf("::") != coordinates.lastIndexOf("::"))
          Left(s"unsupported dependency `$coordinates` (platform `:::` coordinates are not used here)")
        else Right(Dependency(org, name, version, scala))
      case _ => Left(s"malformed dependency `$coordinates` (want org::name:version or org:name:version)")
    }
  }

  /** Splits on spaces and commas; double-quoted values may hold either. */
  private def tokens(s: String): Either[String, List[String]] = {
    val out = List.newBuilder[String]
    val cur = new StringBuilder
    var quoted = false
    var started = false
    s.foreach { c =>
      if (c == '"') { quoted = !quoted; started = true }
      else if (!quoted && (c == ' ' || c == '\t' || c == ',')) {
        if (started) { out += cur.toString; cur.clear(); started = false }
      } else { cur.append(c); started = true }
    }
    if (quoted) Left("unterminated quote")
    else {
      if (started) out += cur.toString
      Right(out.result())
    }
  }

  private def sequence[A](xs: List[Either[String, A]]): Either[String, List[A]] =
    xs.foldRight[Either[String, List[A]]](Right(Nil)) { (x, acc) => for { a <- x; as <- acc } yield a :: as }
}

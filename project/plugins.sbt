// The meta-build compiles the project.scala directive parser that the main
// build, the tests and the CLI share, so there is exactly one parser.
Compile / unmanagedSources += baseDirectory.value.getParentFile / "commands" / "base" / "ProjectDirectives.scala"

// `./bankops fmt` and `./bankops fmt --check` (CI): the formatter's own version is pinned in .scalafmt.conf.
addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.5.4")

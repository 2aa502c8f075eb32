// The meta-build compiles the project.scala directive parser that the main
// build, the tests and the CLI share, so there is exactly one parser, and the
// JVM options of the processes bankops starts, which the build writes out for
// the launcher, and the `--version` line it prints without a JVM.
Compile / unmanagedSources ++=
  Seq("ProjectDirectives.scala", "JvmOptions.scala", "Version.scala").map(baseDirectory.value.getParentFile / "commands" / "base" / _)

// `./bankops fmt` and `./bankops fmt --check` (CI): the formatter's own version is pinned in .scalafmt.conf.
addSbtPlugin("org.scalameta" % "sbt-scalafmt" % "2.5.4")

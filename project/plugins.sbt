// The meta-build compiles the project.scala directive parser that the main
// build, the tests and the CLI share, so there is exactly one parser, and the
// JVM options of the processes bankops starts, which the build writes out for
// the launcher.
Compile / unmanagedSources ++= Seq("ProjectDirectives.scala", "JvmOptions.scala").map(baseDirectory.value.getParentFile / "commands" / "base" / _)

// The meta-build compiles the project.scala directive parser that the main
// build, the tests and the CLI share, so there is exactly one parser.
Compile / unmanagedSources += baseDirectory.value.getParentFile / "commands" / "base" / "ProjectDirectives.scala"

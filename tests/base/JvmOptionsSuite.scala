package bankops.base

import bankops.support.Repo

/** The handler's JVM options are written once (JvmOptions); the launcher and the scala-cli script use the same. */
class JvmOptionsSuite extends munit.FunSuite {

  test("scripts/command-handler.sc gives the handler exactly JvmOptions.Handler") {
    val directives = os.read.lines(Repo.root / "scripts" / "command-handler.sc").map(_.trim).filter(_.startsWith("//> using javaOpt "))
    assertEquals(directives.flatMap(_.stripPrefix("//> using javaOpt ").trim.split("\\s+")).toList, JvmOptions.Handler)
  }

  test("the build writes JvmOptions.Handler where the launcher reads the handler's options") {
    val written = Repo.root / ".bankops" / "build" / "handler-java-options"
    assume(os.exists(written), "the launcher's build has not run here")
    assertEquals(os.read.lines(written).filter(_.nonEmpty).toList, JvmOptions.Handler)
  }
}

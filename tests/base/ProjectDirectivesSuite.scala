package bankops.base

class ProjectDirectivesSuite extends munit.FunSuite {

  test("the repository's own project.scala parses, with the versions commands/DESIGN.md names") {
    val d = ProjectDirectives.parse(os.read(bankops.support.Repo.root / "project.scala")).fold(e => fail(e), identity)
    assertEquals(d.scalaVersion, "2.13.17")
    val names = d.dependencies.map(x => s"${x.organization}:${x.name}:${x.version}").toSet
    assert(names("com.github.fd4s:fs2-kafka:3.9.1"), names)
    assert(names("com.github.fd4s:vulcan:1.12.0"), names)
    assert(names("com.monovore:decline:2.4.1"), names)
    assert(d.testDependencies.exists(_.name == "munit"))
    assertEquals(d.mainClass, Some("bankops.Main"))
  }

  test("scala and java dependencies, quoted values, several per line, test deps and options") {
    val text =
      """//> using scala "2.13.17"
        |//> using deps a.b::c:1.0, "d.e:f:2.0"
        |//> using test.dep org.scalameta::munit:1.2.1
        |//> using options -deprecation -feature
        |// an ordinary comment
        |object X""".stripMargin
    val d = ProjectDirectives.parse(text).fold(e => fail(e), identity)
    assertEquals(d.dependencies, List(Dependency("a.b", "c", "1.0", scalaSuffix = true), Dependency("d.e", "f", "2.0", scalaSuffix = false)))
    assertEquals(d.testDependencies.map(_.name), List("munit"))
    assertEquals(d.scalacOptions, List("-deprecation", "-feature"))
  }

  test("an unknown directive fails naming the directive and its line") {
    val err = ProjectDirectives.parse("//> using scala 2.13.17\n//> using resourceDir res\n").swap.getOrElse(fail("accepted"))
    assert(err.contains("project.scala:2"), err)
    assert(err.contains("resourceDir"), err)
  }

  test("malformed dependencies, a missing scala version and a doubled one are refused") {
    assert(ProjectDirectives.parse("//> using scala 2.13.17\n//> using dep org::name\n").swap.exists(_.contains("malformed dependency")))
    assert(ProjectDirectives.parse("//> using scala 2.13.17\n//> using dep org:::name:1\n").isLeft)
    assert(ProjectDirectives.parse("//> using dep a:b:1\n").swap.exists(_.contains("no `//> using scala`")))
    assert(ProjectDirectives.parse("//> using scala 2.13.17\n//> using scala 2.13.16\n").swap.exists(_.contains("twice")))
    assert(ProjectDirectives.parse("//> using scala \"2.13\n").swap.exists(_.contains("unterminated quote")))
  }
}

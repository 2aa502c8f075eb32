package bankops.base

import cats.syntax.all._
import com.monovore.decline.{Command, Opts}

import bankops.Jobs

class CommandTreeSuite extends munit.FunSuite {
  private val sample = Command("tool", "A tool.")(
    Opts.subcommand("show", "Show it.")(
      (
        Opts.option[String]("output", "Format.", "o", "table|json").orNone,
        Opts.flag("all", "Everything.").orFalse,
        Opts.options[String]("topic", "Topics.", metavar = "TOPIC").orEmpty,
        Opts.argument[String]("NAME").orNone,
        Opts.env[String]("TOOL_X", "x").orNone
      ).tupled
    ) orElse Opts.subcommand("run", "Run it.")(Opts.option[Int]("rate", "Rate.").withDefault(1).validate("positive")(_ > 0))
  )

  test("the walk finds subcommands, flags with their names and metavars, arguments, and --help") {
    val tree = CommandTree.of(sample)
    assertEquals(tree.name, "tool")
    assertEquals(tree.commands.map(_.name), List("show", "run"))
    assertEquals(tree.flags.map(_.names), List(List("--help")))
    val show = tree.commands.head
    assertEquals(show.flags.map(_.names), List(List("--help"), List("--output", "-o"), List("--all"), List("--topic")))
    assertEquals(show.flags.find(_.names.contains("--output")).map(_.choices), Some(List("table", "json")))
    assertEquals(show.flags.find(_.names.contains("--all")).flatMap(_.metavar), None)
    assertEquals(show.arguments, List("NAME"))
    assertEquals(tree.commands(1).flags.map(_.names), List(List("--help"), List("--rate")))
    assertEquals(tree.paths.map(_._1), List(List("tool"), List("tool", "show"), List("tool", "run")))
  }

  test("the CLI's tree holds every job, and the jobs' subcommands") {
    val tree = Cli.tree(Jobs.all)
    assertEquals(tree.commands.map(_.name), Jobs.all.map(_.name))
    assert(tree.flags.exists(_.names == List("--version")))
    val context = tree.commands.find(_.name == "context").get
    assertEquals(context.commands.map(_.name), List("add", "list", "use", "show", "remove"))
    val inspect = tree.commands.find(_.name == "inspect").get
    assertEquals(inspect.flags.find(_.names.contains("--output")).map(_.choices), Some(List("json", "pretty", "avro-json")))
    assert(inspect.flags.exists(f => f.names == List("--topic") && f.metavar.contains("TOPIC")))
  }
}

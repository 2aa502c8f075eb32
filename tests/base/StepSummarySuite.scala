package bankops.base

import bankops.support.{MarkdownCheck, TestShell}
import bankops.support.IOSuite.runtime

class StepSummarySuite extends munit.FunSuite {

  private val plan = StepSummary("plan", "2 changes pending", StepSummary.Outcome.Attention,
    facts = List("topics" -> "1 change", "subjects" -> "1 to register"),
    tables = List(StepSummary.Table(List("topic", "action", "detail"), List(List("heartbeat", "create", "1 partitions")), title = Some("topics"))))

  test("a section: heading with the job and the outcome, facts, titled table, all valid Markdown") {
    assertEquals(plan.markdown,
      """### bankops plan: 2 changes pending :warning:
        |
        |- **topics**: 1 change
        |- **subjects**: 1 to register
        |
        |**topics**
        |
        || topic | action | detail |
        || --- | --- | --- |
        || heartbeat | create | 1 partitions |
        |""".stripMargin)
    assertEquals(MarkdownCheck.problems(plan.markdown), Nil)
  }

  test("cells: a pipe, a backslash before a pipe and line breaks stay inside their cell") {
    val t = StepSummary.Table(List("a", "b"), List(List("x | y", "one\ntwo\r\nthree"), List("back\\|slash", "")), numeric = Set(1))
    val md = StepSummary.table(t)
    assertEquals(MarkdownCheck.problems("\n" + md), Nil)
    assertEquals(MarkdownCheck.tableRows(md), List(List("x \\| y", "one<br>two<br>three"), List("back\\\\\\|slash", "")))
    assert(md.contains("| --- | ---: |"), md)
  }

  test("rows past the limit are counted; an empty table says (none); short rows are padded") {
    val md = StepSummary.table(StepSummary.Table(List("n", "m"), (1 to 5).toList.map(i => List(i.toString)), limit = 3))
    assertEquals(MarkdownCheck.tableRows(md), List(List("1", ""), List("2", ""), List("3", "")))
    assert(md.endsWith("… and 2 more rows (`--output json` lists them all)"), md)
    assertEquals(MarkdownCheck.tableRows(StepSummary.table(StepSummary.Table(List("n"), Nil))), List(List("(none)")))
  }

  test("headings, facts and notes are one line each; code spans survive backticks") {
    val s = StepSummary("inspect", "a\nb", StepSummary.Outcome.Ok, facts = List("k\n" -> "v\nw"), notes = List("x\ny"))
    assertEquals(s.markdown, "### bankops inspect: a b :white_check_mark:\n\n- **k **: v w\n\nx y\n")
    assertEquals(StepSummary.code("a`b"), "``a`b``")
    assertEquals(StepSummary.code("`a"), "`` `a ``")
    assertEquals(StepSummary("x", "y", StepSummary.Outcome.Info).markdown, "### bankops x: y\n")
  }

  test("the checker itself finds broken tables, headings and fences") {
    assert(MarkdownCheck.problems("| a | b |\n| --- | --- |\n| 1 | 2 | 3 |").exists(_.contains("3 cells where the header has 2")))
    assert(MarkdownCheck.problems("| a | b |\n| 1 | 2 |").exists(_.contains("delimiter row")))
    assert(MarkdownCheck.problems("text\n| a |\n| --- |").exists(_.contains("blank line")))
    assert(MarkdownCheck.problems("###no space").nonEmpty)
    assert(MarkdownCheck.problems("```\ncode").exists(_.contains("never closed")))
    assert(MarkdownCheck.problems("").nonEmpty)
  }

  test("write appends to $GITHUB_STEP_SUMMARY when set, a blank line between sections; nothing when unset") {
    val file = os.temp("existing\n")
    val t = new TestShell(Map(StepSummary.Variable -> file.toString), os.pwd)
    (StepSummary.write(t.shell, plan) >> StepSummary.write(t.shell, plan)).unsafeRunSync()
    assertEquals(os.read(file), "existing\n" + plan.markdown + "\n" + plan.markdown + "\n")
    assertEquals(MarkdownCheck.problems(os.read(file).stripPrefix("existing\n")), Nil)
    val unset = new TestShell(Map.empty, os.pwd)
    StepSummary.write(unset.shell, plan).unsafeRunSync() // no file named: nothing to do, no error
    val bad = new TestShell(Map(StepSummary.Variable -> (os.temp.dir() / "no" / "such" / "file").toString), os.pwd)
    val e = intercept[Failure.BadInput](StepSummary.write(bad.shell, plan).unsafeRunSync())
    assert(e.message.contains("GITHUB_STEP_SUMMARY"), e.message)
  }
}

package bankops

import bankops.support.Repo

/** commands/DESIGN.md names files, folders and members (`jobs/handler/Ledger`, `PreparedBatches.recoverIfNeeded`): each
  * must exist, so a rename or a move that leaves the note behind fails here rather than misleads a reader. The README's
  * list of the jobs that also run as scala-cli scripts is held to `scripts/` the same way.
  */
class DesignDocSuite extends munit.FunSuite {
  import DesignDocSuite._

  private def sources: Map[String, String] = {
    val root = Repo.root / "commands"
    os.walk(root).filter(_.ext == "scala").map(p => p.relativeTo(root).toString -> os.read(p)).toMap
  }

  test("every file, folder and member commands/DESIGN.md names exists") {
    val doc = os.read(Repo.root / "commands" / "DESIGN.md")
    assert(checked(doc).size > 40, checked(doc))
    assertEquals(missing(doc, sources, p => os.exists(Repo.root / os.RelPath(p))), Nil)
  }

  test("the handler's file list names every file of jobs/handler: the money path has no file the note leaves out") {
    val doc = os.read(Repo.root / "commands" / "DESIGN.md")
    val files = os.list(Repo.root / "commands" / "jobs" / "handler").filter(_.ext == "scala").map(_.baseName).toList
    assert(files.size > 10, files)
    assertEquals(unlisted(doc, files), Nil)
    assertEquals(unlisted("`jobs/handler/` (...): `Ledger` (the rules)\n\n### A batch\n`Gone`", List("Ledger", "Gone")), List("Gone"))
  }

  test("README's list of scala-cli scripts is scripts/, each script running the job the README pairs it with") {
    val scripts = os.list(Repo.root / "scripts").filter(_.ext == "sc").map(p => p.last -> os.read(p)).toMap
    assert(scripts.size > 5, scripts.keys)
    assertEquals(scriptDifferences(os.read(Repo.root / "README.md"), scripts), Nil)
  }

  test("that check finds a script not listed, a listed one missing, one running another job, and one of the CLI's only") {
    val readme = "The jobs with a script in `scripts/` also run as standalone scala-cli scripts: `topics apply`\n" +
      "(`create-topics.sc`), `inspect`, `balances validate` (`validate-balances.sc`) and `context`; the others\n" +
      "(`demo`, `plan`/`apply`, among them) run through the CLI only."
    def script(job: String*) = s"//> using file ../commands\nbankops.Main.main(Array(${job.map(j => s"\"$j\"").mkString(", ")}) ++ args)\n"
    val scripts = Map("create-topics.sc" -> script("topics", "apply"), "inspect.sc" -> script("inspect"),
      "validate-balances.sc" -> script("balances", "check"), "groups.sc" -> script("groups"), "plan.sc" -> script("plan"))
    assertEquals(scriptDifferences(readme, scripts),
      List(
        "scripts/groups.sc: not in README's list of scripts",
        "scripts/plan.sc: not in README's list of scripts",
        "README lists context.sc (`context`): not in scripts/",
        "scripts/validate-balances.sc runs `balances check`, README says `balances validate`",
        "scripts/plan.sc runs `plan`, which README says runs through the CLI only"
      ))
    assertEquals(scriptDifferences("no list here", scripts).map(_.take(30)), List("README.md: no sentence listing"))
  }

  test("the check finds a file, a folder and a member that are not there") {
    val files = Map("jobs/handler/PreparedBatches.scala" -> "final class PreparedBatches { def recoverIfNeeded(): Unit = () }")
    val doc = "`jobs/handler/Gone`, `jobs/nowhere/`, `PreparedBatches.recoverIfNeeded`, `HandlerLoop.recoverIfNeeded`, " +
      "`PreparedBatches.gone`, `jobs/handler/PreparedBatches`, `Command.parse`, `PreparedBatches.scala`, `Gone.scala`"
    assertEquals(missing(doc, files, _ => false),
      List("jobs/handler/Gone", "jobs/nowhere/", "HandlerLoop.recoverIfNeeded", "PreparedBatches.gone", "Gone.scala"))
  }
}

object DesignDocSuite {

  /** The files of `names` the handler's file list (from `jobs/handler/` to the next heading) does not name. */
  def unlisted(doc: String, names: List[String]): List[String] = {
    val from = doc.indexOf("`jobs/handler/`")
    val list = if (from < 0) "" else doc.substring(from, doc.indexOf("\n#", from) match { case -1 => doc.length; case i => i })
    names.filterNot(n => list.contains(s"`$n`")).sorted
  }
  private val ScriptsSentence = "also run as standalone scala-cli scripts: (.*?); the others \\((.*?)\\) run through the CLI only".r
  private val ScriptItem = "`([a-z][a-z ]*)`(?: \\(`([a-z][a-z-]*\\.sc)`\\))?".r
  private val MainCall = "bankops\\.Main\\.main\\(Array\\(([^)]*)\\)".r

  /** README's sentence on scripts: each script it lists with the job that script runs (a job given without a file runs
    * from `scripts/<job>.sc`), and the jobs it says run through the CLI only. None when the sentence is not there.
    */
  def readmeScripts(readme: String): Option[(Map[String, String], List[String])] =
    ScriptsSentence.findFirstMatchIn(readme.replaceAll("\\s+", " ")).map { m =>
      val listed = ScriptItem.findAllMatchIn(m.group(1)).map(i => Option(i.group(2)).getOrElse(s"${i.group(1)}.sc") -> i.group(1)).toMap
      (listed, Quoted.findAllMatchIn(m.group(2)).map(_.group(1)).toList)
    }

  /** Where README's list and `scripts` (file name to text) differ: a script it does not list, one it lists that is not
    * there, a script that runs another job than the one README pairs it with, a script of a job README says has none.
    */
  def scriptDifferences(readme: String, scripts: Map[String, String]): List[String] = readmeScripts(readme) match {
    case None => List("README.md: no sentence listing the jobs that \"also run as standalone scala-cli scripts: ...; the others (...) run " +
        "through the CLI only\"")
    case Some((listed, cliOnly)) =>
      val runs = scripts.map { case (f, text) =>
        f -> MainCall.findFirstMatchIn(text).map(m => "\"([^\"]*)\"".r.findAllMatchIn(m.group(1)).map(_.group(1)).mkString(" "))
      }
      (scripts.keySet -- listed.keySet).toList.sorted.map(f => s"scripts/$f: not in README's list of scripts") ++
        (listed.keySet -- scripts.keySet).toList.sorted.map(f => s"README lists $f (`${listed(f)}`): not in scripts/") ++
        listed.toList.sorted.collect {
          case (f, job) if scripts.contains(f) && !runs(f).contains(job) =>
            s"scripts/$f runs `${runs(f).getOrElse("no job")}`, README says `$job`"
        } ++
        runs.toList.sorted.collect {
          case (f, Some(job)) if cliOnly.exists(o => job == o || job.startsWith(s"$o ")) =>
            s"scripts/$f runs `$job`, which README says runs through the CLI only"
        }
  }

  private val Quoted = "`([^`\\s]+)`".r
  private val Path = "([a-z][A-Za-z]*/(?:[A-Za-z]+/?)*)".r
  private val Member = "([A-Z][A-Za-z0-9]*)\\.([a-z][A-Za-z0-9]*)".r
  /** Types of libraries the note names by their members (decline's `Command.parse`). */
  private val Libraries = Set("Command")

  def references(doc: String): List[String] = Quoted.findAllMatchIn(doc).map(_.group(1)).toList.distinct

  /** The references the check can hold to the code: `.scala` files, paths, and `Type.member` of the project's types.
    * Bare type names and members with capitals are not checked; a member is looked for anywhere in its type's file.
    */
  def checked(doc: String): List[String] = references(doc).filter {
    case "/" => false
    case f if f.endsWith(".scala") => true
    case Path(_) => true
    case Member(tpe, _) => !Libraries(tpe)
    case _ => false
  }

  /** The references in `doc` that name nothing: a path under commands/ (or a repository path such as `tests/...`)
    * that is neither a folder nor a .scala file, a `Type.member` whose type's file does not define the member.
    * `sources`: commands/'s files by path; `exists`: whether a repository path exists.
    */
  def missing(doc: String, sources: Map[String, String], exists: String => Boolean): List[String] =
    references(doc).filter {
      case "/" => false
      case f if f.endsWith(".scala") => !(sources.keys.exists(k => k == f || k.endsWith(s"/$f")) || exists(f))
      case p @ Path(_) =>
        val bare = p.stripSuffix("/")
        val inCommands = sources.keys.exists(k => k == s"$bare.scala" || k.startsWith(s"$bare/"))
        !(inCommands || exists(bare) || exists(s"$bare.scala"))
      case Member(tpe, member) if !Libraries(tpe) =>
        sources.collectFirst { case (k, text) if k.split('/').last == s"$tpe.scala" => text }
          .forall(text => !s"(def|val|lazy val|var)\\s+$member\\b".r.findFirstIn(text).isDefined)
      case _ => false
    }
}

package bankops

import bankops.support.Repo

/** commands/DESIGN.md names files, folders and members (`jobs/handler/Ledger`, `PreparedBatches.recoverIfNeeded`): each
  * must exist, so a rename or a move that leaves the note behind fails here rather than misleads a reader.
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

  test("the check finds a file, a folder and a member that are not there") {
    val files = Map("jobs/handler/PreparedBatches.scala" -> "final class PreparedBatches { def recoverIfNeeded(): Unit = () }")
    val doc = "`jobs/handler/Gone`, `jobs/nowhere/`, `PreparedBatches.recoverIfNeeded`, `HandlerLoop.recoverIfNeeded`, " +
      "`PreparedBatches.gone`, `jobs/handler/PreparedBatches`, `Command.parse`, `PreparedBatches.scala`, `Gone.scala`"
    assertEquals(missing(doc, files, _ => false),
      List("jobs/handler/Gone", "jobs/nowhere/", "HandlerLoop.recoverIfNeeded", "PreparedBatches.gone", "Gone.scala"))
  }
}

object DesignDocSuite {
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

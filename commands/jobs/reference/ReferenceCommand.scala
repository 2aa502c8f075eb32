package bankops.jobs.reference

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{AtomicFile, Cli, Exit, Failure, Job, Rendered, Shell, Shown}

/** `bankops reference DIR [--check]`: the command reference generated from every job's options. The job list is handed
  * in by the top layer (a job never sees the others): a function, since this job is on that list itself.
  */
object ReferenceCommand {
  final case class Options(dir: os.Path, named: String, check: Boolean)

  /** The pages that were (or, checking, would be) written or removed. */
  final case class Changed(written: List[String], removed: List[String]) {
    def all: List[String] = (written ++ removed).sorted
  }

  private def run(jobs: () => List[Job[_, _]])(o: Options, shell: Shell): IO[Changed] = IO.blocking {
    if (os.exists(o.dir, followLinks = false) && !os.isDir(o.dir))
      throw Failure.BadInput(s"reference: ${o.named} is not a directory")
    val all = jobs()
    val pages = ReferencePages.pages(Cli.tree(all), Cli.help(all, _))
    val present = if (os.isDir(o.dir)) os.list(o.dir).filter(f => os.isFile(f, followLinks = false) && f.ext == "md").map(_.last).toList else Nil
    val written = pages.toList.sorted.collect { case (f, text) if !present.contains(f) || os.read(o.dir / f) != text => f }
    val removed = present.filterNot(pages.contains).sorted
    if (!o.check) {
      os.makeDir.all(o.dir)
      written.foreach(f => AtomicFile.write(o.dir / f, pages(f), "rw-r--r--"))
      removed.foreach(f => os.remove(o.dir / f))
    }
    Changed(written, removed)
  }

  private def render(o: Options, c: Changed): Shown =
    if (o.check && c.all.nonEmpty)
      Shown(None,
        Rendered.note(s"reference: ${c.all.size} page(s) in ${o.named} differ from the options (${c.all.mkString(", ")}): " +
          s"run `bankops reference ${o.named}`"), Exit.Difference)
    else if (o.check) Shown(None, Rendered.note(s"reference: ${o.named} is as the options say"), Exit.Ok)
    else Shown(None, Rendered.note(s"reference: ${c.written.size} page(s) written, ${c.removed.size} removed in ${o.named}"), Exit.Ok)

  def job(jobs: () => List[Job[_, _]]): Job[Options, Changed] = Job(
    "reference",
    "Write the command reference into DIR: a Markdown page per job, each subcommand as its --help prints it; with --check, " +
      "write nothing and exit 1 naming each page that differs.",
    "bankops reference docs/reference --check",
    (Opts.argument[String]("DIR").mapValidated(d =>
        if (d.trim.isEmpty) "DIR is empty".invalidNel else (os.Path(d, os.pwd), d).validNel),
      Opts.flag("check", "Compare only: exit 1 naming each page that differs, writing nothing.").orFalse).mapN {
      case ((dir, named), check) => Options(dir, named.stripSuffix("/"), check)
    }
  )(run(jobs), render)
}

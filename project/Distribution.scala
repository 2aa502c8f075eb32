import java.io.File
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.zip.ZipFile
import scala.jdk.CollectionConverters._
import scala.sys.process.Process
import scala.util.Try

import sbt.io.IO

/** What `./bankops dist` packs: bankops as a tarball that runs with a JDK alone, outside any checkout (README,
  * "Install"). The launcher (`bin/bankops`) is the checkout's own; it knows it is installed by the `lib/classpath` beside it.
  */
object Distribution {

  /** `bankops/build.properties` for `--version`: the commit built from and when. Written once per source stamp, so an
    * unchanged build leaves the jar (and the class-data archives made against it) as they were.
    */
  def buildInfo(base: File, out: File, stamp: Option[String]): File = {
    val kept = out.exists && (stamp.isEmpty || IO.readLines(out).contains(s"stamp=${stamp.get}"))
    if (!kept) {
      def git(args: String*) = Try(Process("git" +: args, base).!!.trim).toOption
      val changed = git("status", "--porcelain", "--", "commands", "scripts", "project.scala", "build.sbt", "project").exists(_.nonEmpty)
      val commit = git("rev-parse", "--short=12", "HEAD").map(_ + (if (changed) "-modified" else "")).getOrElse("unknown")
      IO.write(out, s"stamp=${stamp.getOrElse("")}\ncommit=$commit\nbuilt=${Instant.now().truncatedTo(ChronoUnit.SECONDS)}\n")
    }
    out
  }

  /** What `bankops --version` prints for the build `buildInfo` wrote (the JVM prints the same line). */
  def versionLine(buildProperties: File): String =
    bankops.base.Version.lineOf(Some(bankops.base.Version.Build.read(new java.io.FileInputStream(buildProperties))))

  /** Lays out `dir/bankops-VERSION/` and packs it as `dir/bankops-VERSION.tar.gz`; returns the tarball. */
  def pack(base: File, dir: File, version: String, jars: Seq[File], versionLine: String, javaOptions: Seq[String], handlerOptions: Seq[String],
           dataOptions: Seq[String], stamp: String, aotJdk: Option[File], log: String => Unit): File = {
    val name = s"bankops-$version"
    val root = new File(dir, name)
    IO.delete(root)
    val lib = new File(root, "lib")
    // Two dependencies may share a file name (same artifact name, other organisations): the later one is numbered.
    val names = jars.zipWithIndex.map { case (jar, i) =>
      if (jars.take(i).exists(_.getName == jar.getName)) s"$i-${jar.getName}" else jar.getName
    }
    jars.zip(names).foreach { case (jar, n) => IO.copyFile(jar, new File(lib, n)) }
    IO.write(new File(lib, "classpath"), names.map(_ + "\n").mkString)
    IO.write(new File(lib, "java-options"), javaOptions.map(_ + "\n").mkString)
    IO.write(new File(lib, "handler-java-options"), handlerOptions.map(_ + "\n").mkString)
    IO.write(new File(lib, "data-java-options"), dataOptions.map(_ + "\n").mkString)
    IO.write(new File(lib, "stamp"), stamp)
    IO.write(new File(lib, "version"), versionLine + "\n")
    val launcher = new File(root, "bin/bankops")
    IO.copyFile(new File(base, "bankops"), launcher)
    launcher.setExecutable(true, false)
    // The jobs read the topology and the demo's fixtures next to the install; docs/ (the guide, performance and the
    // generated reference) keeps the README's links whole.
    Seq("schemas", "fixtures", "docs").foreach(d => IO.copyDirectory(new File(base, d), new File(root, d)))
    IO.copyFile(new File(base, "README.md"), new File(root, "README.md"))
    licences(jars.zip(names), new File(root, "LICENSES"))
    // The completion scripts come from the packed launcher itself: a first check that it runs without the checkout.
    val completion = new File(root, "completion")
    IO.createDirectory(completion)
    Seq("bash" -> "bankops.bash", "zsh" -> "_bankops", "fish" -> "bankops.fish").foreach { case (shell, file) =>
      val script = Process(Seq("bash", launcher.getPath, "completion", shell), dir, "BANKOPS_CDS" -> "off").!!
      IO.write(new File(completion, file), script)
    }
    // JDK 25's AOT cache, trained by running the packed jobs on that JDK (project/aot-train.sh says how).
    aotJdk.foreach { jdk =>
      if (Process(Seq("bash", new File(base, "project/aot-train.sh").getPath, root.getPath, jdk.getPath)).! != 0)
        sys.error(s"the AOT cache could not be trained on $jdk (above)")
    }
    // Packed beside its final name and moved into place whole: an interrupted or failed dist leaves no tarball that
    // looks complete (a release job would attach it), only a .part the next run replaces.
    val tarball = new File(dir, s"$name.tar.gz")
    val part = new File(dir, s"$name.tar.gz.part")
    IO.delete(Seq(tarball, part))
    val packed = Process(Seq("tar", "-C", dir.getPath, "-czf", part.getPath, name)).!
    if (packed != 0) sys.error(s"tar could not pack $root")
    IO.move(part, tarball)
    log(s"bankops: distribution $tarball")
    tarball
  }

  /** Each jar's own licence and notice files (META-INF), and an index naming the licence its POM declares. */
  private def licences(jars: Seq[(File, String)], out: File): Unit = {
    val notice = """(?i)META-INF/(LICEN[CS]E|NOTICE|COPYING)[^/]*""".r
    val index = jars.map { case (jar, name) =>
      val zip = new ZipFile(jar)
      val copied = try zip.entries.asScala.filter(e => !e.isDirectory && notice.pattern.matcher(e.getName).matches).map { e =>
          val file = new File(out, s"$name/${e.getName.stripPrefix("META-INF/")}")
          IO.transfer(zip.getInputStream(e), file)
          file.getName
        }.toList
      finally zip.close()
      val pom = new File(jar.getParentFile, jar.getName.stripSuffix(".jar") + ".pom")
      val declared = if (pom.exists) """<license>\s*<name>([^<]+)</name>""".r.findAllMatchIn(IO.read(pom)).map(_.group(1).trim).toList else Nil
      val licence = if (declared.nonEmpty) declared.mkString(", ") else "see the project's own files"
      s"$name: $licence" + (if (copied.nonEmpty) s" (files: ${copied.mkString(", ")})" else "")
    }
    IO.write(new File(out, "INDEX"),
      ("The libraries in lib/ and their licences (from each one's POM; its own files in the directory of its name):" +: index).mkString("", "\n",
        "\n"))
  }
}

package bankops.jobs.reference

import bankops.support.{IOSuite, Repo, TestShell}

/** The command reference in docs/reference is generated from the options, and a page that drifts from them fails here. */
class ReferenceSuite extends IOSuite {
  private val committed = Repo.root / os.RelPath(ReferencePages.Dir)

  test("docs/reference is what every job's --help says (else: ./bankops reference docs/reference)") {
    TestShell.run(List("reference", committed.toString, "--check")).map { r =>
      assertEquals(r.code, 0, r.err)
    }
  }

  test("a page per job, each holding its --help; a changed and a stale page: --check exit 1 naming both, then written over") {
    val dir = os.temp.dir() / "ref"
    for {
      written <- TestShell.run(List("reference", dir.toString))
      help <- TestShell.run(List("restore", "--help"))
      _ = os.write.append(dir / "restore.md", "edited by hand\n")
      _ = os.write(dir / "gone.md", "a job that left")
      checked <- TestShell.run(List("reference", dir.toString, "--check"))
      unchanged = (os.read(dir / "restore.md"), os.exists(dir / "gone.md"))
      again <- TestShell.run(List("reference", dir.toString))
      recheck <- TestShell.run(List("reference", dir.toString, "--check"))
    } yield {
      assertEquals(written.code, 0, written.err)
      val pages = os.list(dir).map(_.last).toSet
      assert(Set("README.md", "restore.md", "inspect.md", "sandbox.md", "reference.md").subsetOf(pages), pages.toString)
      assert(os.read(dir / "restore.md").contains(help.out.trim), os.read(dir / "restore.md"))
      assert(os.read(dir / "sandbox.md").contains("## bankops sandbox status"), "each subcommand has its section")
      assert(os.read(dir / "README.md").contains("- [`bankops restore`](restore.md): Put a capture archive back"), os.read(dir / "README.md"))
      assertEquals(checked.code, 1, checked.err)
      assert(checked.err.contains("2 page(s)") && checked.err.contains("gone.md") && checked.err.contains("restore.md"), checked.err)
      assert(unchanged._1.endsWith("edited by hand\n") && unchanged._2, "--check writes nothing")
      assertEquals((again.code, recheck.code), (0, 0), again.err + recheck.err)
      assert(!os.exists(dir / "gone.md"))
    }
  }

  test("a file as DIR: exit 2 naming it, nothing written") {
    val file = os.temp(contents = "not a directory")
    TestShell.run(List("reference", file.toString)).map { r =>
      assertEquals(r.code, 2, r.err)
      assert(r.err.contains(s"reference: $file is not a directory"), r.err)
      assertEquals(os.read(file), "not a directory")
    }
  }
}

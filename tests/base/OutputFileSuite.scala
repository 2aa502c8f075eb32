package bankops.base

import cats.effect.{Deferred, IO}

import scala.concurrent.duration._

import OutputFile.{Found, Parent}

import bankops.support.IOSuite

class OutputFileSuite extends IOSuite {
  private val p = os.Path("/srv/out/slice.jsonl")
  private val dir = Parent(exists = true, isDirectory = true, writable = true)

  test("the refusal table: what is written, what is refused and the line naming flag and path") {
    // (found, parent, overwrite) -> expected fragment, or None when it is written
    val rows: List[(Found, Parent, Boolean, Option[String])] = List(
      (Found.Missing, dir, false, None),
      (Found.Missing, dir, true, None),
      (Found.RegularFile, dir, true, None),
      (Found.RegularFile, dir, false, Some("already exists: --overwrite replaces it")),
      (Found.Directory, dir, true, Some("is a directory")),
      (Found.Link, dir, true, Some("is a symbolic link")),
      (Found.Special, dir, true, Some("is a device, pipe or socket")),
      (Found.Missing, dir.copy(exists = false, isDirectory = false), false, Some("no such directory /srv/out")),
      (Found.Missing, dir.copy(isDirectory = false), false, Some("/srv/out is not a directory")),
      (Found.Missing, dir.copy(writable = false), false, Some("directory /srv/out is not writable"))
    )
    rows.foreach { case (found, parent, overwrite, expected) =>
      val got = OutputFile.refusal("--to-file", p, found, parent, overwrite)
      expected match {
        case None => assertEquals(got, None, s"$found $parent $overwrite")
        case Some(fragment) =>
          val line = got.getOrElse(fail(s"$found $parent $overwrite was not refused"))
          assert(line.startsWith(s"--to-file $p"), line)
          assert(line.contains(fragment), line)
          assert(line.endsWith("nothing written"), line)
      }
    }
  }

  private def refused(io: IO[Unit]): IO[String] = io.attempt.map {
    case Left(Failure.BadInput(m)) => m
    case other => fail(s"expected exit 2, got $other")
  }

  test("on disk: a directory, a symlink and a device are refused and left as they were; nothing partial is left") {
    val d = os.temp.dir()
    val target = os.temp(dir = d, contents = "kept")
    val link = d / "link"
    os.symlink(link, target)
    val sub = d / "sub"
    os.makeDir(sub)
    os.write(sub / "inside", "x")
    for {
      l <- refused(OutputFile.writeText("--to-file", link, overwrite = true)("new"))
      s <- refused(OutputFile.writeText("--to-file", sub, overwrite = true)("new"))
      n <- refused(OutputFile.writeText("--to-file", os.Path("/dev/null"), overwrite = true)("new"))
    } yield {
      assert(l.contains("symbolic link"), l)
      assert(s.contains("is a directory"), s)
      assert(n.contains("device"), n)
      assert(os.isLink(link) && os.read(target) == "kept")
      assert(os.isDir(sub) && os.read(sub / "inside") == "x")
      assert(os.list(d).forall(!_.last.endsWith(".partial")), os.list(d).toString)
    }
  }

  test("a new name is written whole; an existing file only with overwrite") {
    val d = os.temp.dir()
    val f = d / "offsets.json"
    for {
      _ <- OutputFile.writeText("--save-to", f, overwrite = false)("first")
      again <- refused(OutputFile.writeText("--save-to", f, overwrite = false)("second"))
      first = os.read(f)
      _ <- OutputFile.writeBytes("--save-to", f, overwrite = true)("third".getBytes("UTF-8"))
    } yield {
      assertEquals(first, "first")
      assert(again.contains("already exists"), again)
      assertEquals(os.read(f), "third")
      assertEquals(os.list(d).map(_.last).toList, List("offsets.json"))
    }
  }

  test("a failure or a cancellation mid-write removes the partial file and leaves the old file as it was") {
    val d = os.temp.dir()
    val f = d / "slice.jsonl"
    os.write(f, "old")
    val failing = OutputFile.write("--to-file", f, overwrite = true)(w => IO.blocking(w.write("half")) >> IO.raiseError(new RuntimeException("boom")))
    // Cancelled once it has written: the partial file is looked at then, however slow the machine.
    def cancelled(written: Deferred[IO, Unit]) =
      OutputFile.write("--to-file", f, overwrite = true)(w => IO.blocking { w.write("half"); w.flush() } >> written.complete(()) >> IO.never[Unit])
    for {
      e <- failing.attempt
      written <- Deferred[IO, Unit]
      fiber <- cancelled(written).start
      // A write that failed before it had written is its own error, not a timeout.
      sawPartial <- IO.race(written.get, fiber.joinWithNever).flatMap(_ => IO(os.exists(OutputFile.partialOf(f)))).timeout(30.seconds)
        .guarantee(fiber.cancel)
    } yield {
      assertEquals(e.left.map(_.getMessage), Left("boom"))
      assert(sawPartial, "the contents go to the partial file first")
      assertEquals(os.read(f), "old")
      assertEquals(os.list(d).map(_.last).toList, List("slice.jsonl"))
    }
  }

  test("a partial file left by a killed run is replaced; a link planted in its place is refused, not written through") {
    val d = os.temp.dir()
    val f = d / "slice.jsonl"
    os.write(OutputFile.partialOf(f), "stale")
    val victim = os.temp(dir = os.temp.dir(), contents = "victim")
    for {
      _ <- OutputFile.writeText("--to-file", f, overwrite = false)("fresh")
      _ = os.symlink(OutputFile.partialOf(f), victim)
      m <- refused(OutputFile.writeText("--to-file", d / "other", overwrite = false)("x").flatMap(_ =>
          OutputFile.writeText("--to-file", f, overwrite = true)("y")))
    } yield {
      assertEquals(os.read(d / "other"), "x")
      assert(m.contains("is not a regular file"), m)
      assertEquals(os.read(f), "fresh")
      assertEquals(os.read(victim), "victim")
    }
  }
}

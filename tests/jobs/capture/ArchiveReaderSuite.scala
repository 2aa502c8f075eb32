package bankops.jobs.capture

import cats.effect.IO
import cats.syntax.all._
import io.circe.syntax._

import scala.concurrent.duration._

import bankops.base.Failure
import bankops.support.BareProcess

/** Version 3's records files, written and read without a cluster: lines back as written, a changed frame named by its
  * checksum, and a frame that would inflate past the bound refused as it is read.
  */
class ArchiveReaderSuite extends munit.CatsEffectSuite {
  private val dir = os.temp.dir(prefix = "archive-reader")
  private val name = ArchiveParts.records("t")

  /** An archive of one records file, `lines`, and its manifest (counts made up: the reader does not compare them). */
  private def archive(file: String, lines: Iterator[String], more: List[(String, String)] = Nil): IO[os.Path] = {
    val path = dir / file
    IO.blocking(os.write.outputStream(path)).bracket { out =>
      val w = new ArchiveWriter(out)
      for {
        _ <- w.lines(name)(s => IO.blocking(lines.foreach(l => s.write((l + "\n").getBytes("UTF-8")))))
        manifest = ArchiveManifest(ArchiveManifest.Format, ArchiveManifest.Version, "test", "2026-12-01T00:00:00Z",
          CaptureAsked(List("t"), "beginning", "end", Nil, Nil, Nil, Nil),
          List(TopicSpan("t", List(PartitionSpan(0, 1, Some(0L), Some(0L), None, None)))),
          w.files)
        _ <- w.text(ArchiveParts.ManifestFile, manifest.asJson(ArchiveManifest.codec).spaces2)
        _ <- more.traverse_ { case (n, content) => w.text(n, content) }
        _ <- w.finish()
      } yield path
    }(out => IO.blocking(out.close()))
  }

  private def read(path: os.Path): IO[Either[Throwable, List[String]]] =
    IO.blocking(ArchiveReader.open(path, deferRecords = true)).flatMap {
      case Left(e) => IO.pure(Left(Failure.BadInput(e)))
      case Right(r) => r.stream(name).map(_.fold(e => throw Failure.BadInput(e), _._1)).compile.toList.attempt.guarantee(IO.blocking(r.close()))
    }

  test("a records file is a zstd frame under NAME.zst, its checksum the frame's, its lines read back as written") {
    val lines = (1 to 5000).map(i => s"""{"partition":0,"offset":$i,"raw":"${"A" * (i % 90)}"}""").toList
    for {
      path <- archive("lines.zip", lines.iterator)
      back <- read(path)
    } yield {
      val zip = new java.util.zip.ZipFile(path.toIO)
      val entries = try { import scala.jdk.CollectionConverters._; zip.entries().asScala.map(_.getName).toList }
      finally zip.close()
      assertEquals(entries, List(s"$name.zst", ArchiveParts.ManifestFile))
      assertEquals(back, Right(lines))
    }
  }

  test("a frame changed after capture is named by its checksum; one inflating past 100 times its size is refused as read") {
    for {
      changed <- archive("changed.zip", Iterator.tabulate(2000)(i => s"""{"offset":$i}"""))
      // One byte of the stored frame flipped in place: same sizes, another checksum.
      _ <- IO.blocking {
        val bytes = os.read.bytes(changed)
        val at = bytes.indexOfSlice(".zst".getBytes("UTF-8")) + 4 + 40
        bytes(at) = (bytes(at) ^ 0x01).toByte
        os.write.over(changed, bytes)
      }
      tampered <- read(changed)
      // 20 lines of 1 MiB of one letter: a frame of a few KiB that inflates to 20 MiB.
      bomb <- archive("bomb.zip", Iterator.fill(20)("x" * (1024 * 1024)))
      exploded <- read(bomb)
    } yield {
      assert(tampered.left.exists(e => e.getMessage.contains(s"$name.zst does not match its checksum in the manifest")), tampered)
      assert(exploded.left.exists(e => e.getMessage.contains(s"$name would inflate from") && e.getMessage.contains("more than 100 times")),
        exploded)
    }
  }

  test("a JVM where zstd's native library cannot load says so in one line, exit 3, and prints no record") {
    // A temporary directory that is a file: zstd-jni cannot unpack its library there; and no library path it could load
    // an installed copy from (a host with libzstd-jni would load it).
    val notADir = os.temp(dir = dir, prefix = "tmpdir")
    val noLibraries = os.temp.dir(dir = dir, prefix = "lib")
    for {
      path <- archive("native.zip", Iterator.tabulate(10)(i => s"""{"offset":$i}"""), List(ArchiveParts.Schemas -> "[]"))
      p <- BareProcess.spawn(Map.empty, List("capture", "show", "--records", path.toString),
        List(s"-Djava.io.tmpdir=$notADir", s"-Djava.library.path=$noLibraries"))
      code <- p.exited(60.seconds)
    } yield {
      val err = os.read.lines(p.err)
      assertEquals(code, 3, err.mkString("\n"))
      assertEquals(err.size, 1, err.mkString("\n"))
      assert(err.head.startsWith(s"bankops: $path: $name is a zstd frame (archive version 3), and zstd's native library does not load here"),
        err.head)
      assert(err.head.endsWith("(BANKOPS_JAVA_OPTS=-Djava.io.tmpdir=DIR)"), err.head)
      assertEquals(os.read(p.out), "")
    }
  }
}

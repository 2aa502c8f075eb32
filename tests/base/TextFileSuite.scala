package bankops.base

import java.io.ByteArrayInputStream

/** Files and lines an operator hands bankops: each named as what it is, each line decoded on its own. */
class TextFileSuite extends munit.FunSuite {
  private val dir = os.temp.dir(prefix = "text-file")

  private def lines(bytes: Array[Byte]): List[Either[String, (String, Int)]] = {
    val r = new LineReader(new ByteArrayInputStream(bytes), "stdin")
    Iterator.continually(r.next()).takeWhile(_.isDefined).flatten.toList
  }

  test("a bad byte on line 1001 is named on line 1001, every line before it read (not per 8 KiB buffer)") {
    val good = (1 to 1000).map(i => s"""{"beat":$i}\n""").mkString.getBytes("UTF-8")
    val read = lines(good ++ Array[Byte]('{', 0xff.toByte, '}', '\n') ++ "{}\n".getBytes("UTF-8"))
    assertEquals(read.count(_.isRight), 1000)
    assertEquals(read.last, Left("stdin:1001: not UTF-8 text"))
  }

  test("batches: as many lines as asked, fewer once their characters reach the limit, and none after an error") {
    def reader(bytes: Array[Byte]) = new LineReader(new ByteArrayInputStream(bytes), "f")
    val r = reader((1 to 10).map(i => s"line$i\n").mkString.getBytes("UTF-8"))
    assertEquals(r.batch(4, 1000).toList.map(_.map(_._2)), List(1, 2, 3, 4).map(Right(_)))
    assertEquals(r.batch(100, 10).toList.map(_.map(_._2)), List(5, 6).map(Right(_))) // 5 + 5 characters reach 10
    assertEquals(r.batch(100, 1000).size, 4)
    assertEquals(r.batch(100, 1000).size, 0)
    val bad = reader("a\nb\n".getBytes("UTF-8") ++ Array[Byte](0xff.toByte, '\n') ++ "c\n".getBytes("UTF-8"))
    assertEquals(bad.batch(100, 1000).toList, List(Right("a" -> 1), Right("b" -> 2), Left("f:3: not UTF-8 text")))
    assertEquals(bad.batch(100, 1000).size, 0)
  }

  test("batches without waiting: the lines that have arrived, never a read more (a terminal or a pipe would block it)") {
    // Three lines and half of a fourth have arrived; a second read would wait for the writer.
    val arrived = new java.io.InputStream {
      private var reads = 0
      def read(): Int = throw new AssertionError("a single byte read")
      override def read(b: Array[Byte], off: Int, len: Int): Int = {
        reads += 1
        if (reads > 2) throw new AssertionError("read again while lines were waiting")
        val bytes = (if (reads == 1) "a\nb\nc\nhal" else "f\n").getBytes("UTF-8")
        System.arraycopy(bytes, 0, b, off, bytes.length)
        bytes.length
      }
    }
    val r = new LineReader(arrived, "stdin")
    assertEquals(r.batch(100, 1000, waiting = false).toList, List(Right("a" -> 1), Right("b" -> 2), Right("c" -> 3)))
    // The next batch waits for its first line only: the rest of the fourth.
    assertEquals(r.batch(100, 1000, waiting = false).toList, List(Right("half" -> 4)))
  }

  test("lines split across reads, CRLF and a last line without newline") {
    val text = ("x" * 70000) + "\r\nb\n\nlast"
    assertEquals(lines(text.getBytes("UTF-8")), List(Right("x" * 70000 -> 1), Right("b" -> 2), Right("" -> 3), Right("last" -> 4)))
    assertEquals(lines(Array.emptyByteArray), Nil)
  }

  test("a line longer than the limit is refused without reading it whole") {
    val huge = new java.io.InputStream {
      var left = LineReader.MaxLineBytes.toLong + 10
      def read(): Int = if (left > 0) { left -= 1; 'a' }
      else -1
      override def read(b: Array[Byte], off: Int, len: Int): Int =
        if (left <= 0) -1 else { val n = math.min(len.toLong, left).toInt; java.util.Arrays.fill(b, off, off + n, 'a'.toByte); left -= n; n }
    }
    val r = new LineReader(huge, "big.jsonl")
    assertEquals(r.next(), Some(Left("big.jsonl:1: line longer than 32 MiB, the limit of one line")))
    assertEquals(r.next(), None)
  }

  test("a writer's check agrees with the reader: a line of the limit's bytes fits, one byte more (or a wide char) does not") {
    val max = LineReader.MaxLineBytes
    // String.repeat copies in doublings: StringOps' `*` appends 32 Mi times, seconds of a loaded test JVM's C1 code
    // (this test once ran past munit's 30 s on a busy 2-core machine).
    def as(n: Int) = "a".repeat(n)
    assertEquals(LineReader.overLimit(as(max / 3)), None)
    assertEquals(LineReader.overLimit(as(max)), None)
    assertEquals(LineReader.overLimit(as(max + 1)), Some(max + 1L))
    // Counted as UTF-8 bytes, as the reader counts: 'é' is two.
    assertEquals(LineReader.overLimit(as(max - 1) + "é"), Some(max + 1L))
    val fits = as(max - 2) + "é"
    assertEquals(LineReader.overLimit(fits), None)
    val read = new LineReader(new java.io.ByteArrayInputStream((fits + "\n").getBytes("UTF-8")), "fits.jsonl").next()
    assertEquals(read.map(_.map(_._1.length)), Some(Right(max - 1)))
    // Said in whole MiB rounded up: one byte over is 33, never "32 MiB, over the 32 MiB".
    assertEquals((LineReader.mib(max.toLong), LineReader.mib(max + 1L)), (32L, 33L))
  }

  test("a directory, a device, a pipe, a missing file, a dangling link: each named as what it is") {
    val fifo = dir / "fifo"
    os.proc("mkfifo", fifo.toString).call()
    val dangling = dir / "dangling"
    java.nio.file.Files.createSymbolicLink(dangling.toNIO, (dir / "gone").toNIO)
    assertEquals(TextFile.read(dir, "--value @"), Left(s"--value @$dir is a directory, not a file"))
    assertEquals(TextFile.read(os.Path("/dev/zero"), "offsets file"), Left("offsets file /dev/zero is not a regular file (a character device)"))
    assertEquals(TextFile.read(fifo), Left(s"$fifo is not a regular file (a named pipe)"))
    assertEquals(TextFile.read(dir / "none"), Left(s"${dir / "none"}: no such file"))
    assertEquals(TextFile.read(dangling), Left(s"$dangling is a symbolic link to a file that does not exist"))
  }

  test("a file that may hold a secret: a link out of its directory is refused, one inside it (a Kubernetes secret volume) is read") {
    val secrets = dir / "secrets"
    os.write.over(secrets / "..data" / "password", "s3cret\n", createFolders = true)
    java.nio.file.Files.createSymbolicLink((secrets / "password").toNIO, (secrets / "..data" / "password").toNIO)
    assertEquals(TextFile.readPrivate(secrets / "password"), Right("s3cret\n"))
    os.write.over(dir / "elsewhere", "S3CRET-elsewhere")
    java.nio.file.Files.createSymbolicLink((secrets / "out").toNIO, (dir / "elsewhere").toNIO)
    val out = TextFile.readPrivate(secrets / "out", "file")
    assertEquals(out,
      Left(s"file ${secrets / "out"} is a symbolic link out of its directory; bankops does not follow it for a file that may " +
        "hold a secret (put the file itself there)"))
  }
}

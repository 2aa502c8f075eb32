package bankops.base

import java.io.InputStream
import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}
import java.nio.file.{Files, NoSuchFileException}

/** Files an operator hands bankops, read as UTF-8 strictly: bytes that are not UTF-8 are bad input naming the file and
  * line (the JDK's MalformedInputException names neither), never replaced silently. A directory, a device or a pipe is
  * named as what it is (reading `/dev/zero` would never end), and a file is read whole only up to [[MaxBytes]].
  */
object TextFile {

  /** A file read whole (a value, a topology, a contexts or properties file): far beyond any of them. */
  val MaxBytes: Long = 64L * 1024 * 1024

  /** Why `file` is not a regular file bankops can read, or None. `what` names it in the message (`--value @x`). */
  def problem(file: os.Path, what: String = "", whole: Boolean = true): Option[String] = {
    val name = named(file, what)
    val p = file.toNIO
    if (Files.isRegularFile(p)) {
      if (!Files.isReadable(p)) Some(s"$name cannot be read (permission denied)")
      else if (whole && Files.size(p) > MaxBytes) Some(s"$name is larger than ${MaxBytes / 1024 / 1024} MiB, the limit of a file read whole")
      else None
    } else if (Files.isSymbolicLink(p) && !Files.exists(p)) Some(s"$name is a symbolic link to a file that does not exist")
    else if (!Files.exists(p)) Some(s"$name: no such file")
    else if (Files.isDirectory(p)) Some(s"$name is a directory, not a file")
    else Some(s"$name is not a regular file (${special(file)})")
  }

  private def special(file: os.Path): String =
    scala.util.Try(Files.getAttribute(file.toNIO, "unix:mode").asInstanceOf[Int] & 0xf000).toOption match {
      case Some(0x2000) => "a character device"
      case Some(0x6000) => "a block device"
      case Some(0x1000) => "a named pipe"
      case Some(0xc000) => "a socket"
      case _ => "a device, pipe or socket"
    }

  def read(file: os.Path, what: String = ""): Either[String, String] =
    problem(file, what).toLeft(()).flatMap(_ => bytes(file, what)).flatMap { bytes =>
      decode(bytes).left.map { _ =>
        // A newline byte is never part of a multi-byte UTF-8 sequence: lines can be decoded one by one.
        val starts = 0 :: bytes.indices.filter(bytes(_) == '\n'.toByte).map(_ + 1).toList
        val line =
          starts.zipWithIndex.collectFirst { case (start, n) if decode(bytes.slice(start, nextLine(bytes, start))).isLeft => n + 1 }.getOrElse(1)
        s"$file:$line: not UTF-8 text"
      }
    }

  /** A file that may hold a secret (contexts, a password, a command-config): a symbolic link is followed only when it
    * points inside the link's own directory (a Kubernetes secret volume's links do), never out of it, where anyone who
    * can write the link's directory could point bankops at another file and have it quoted or used.
    */
  def readPrivate(file: os.Path, what: String = ""): Either[String, String] = {
    val name = named(file, what)
    val p = file.toNIO
    val outside = Files.isSymbolicLink(p) && scala.util.Try {
      val dir = (file / os.up).toNIO.toRealPath()
      !p.toRealPath().startsWith(dir)
    }.getOrElse(false)
    if (outside) Left(s"$name is a symbolic link out of its directory; bankops does not follow it for a file that may hold a " +
      "secret (put the file itself there)")
    else read(file, what)
  }

  /** The lines of a file, decoded one by one, each at most [[LineReader.MaxLineBytes]]. */
  def lines(file: os.Path, what: String = ""): Either[String, List[String]] =
    problem(file, what, whole = false).toLeft(()).flatMap { _ =>
      val in = Files.newInputStream(file.toNIO)
      try {
        val reader = new LineReader(in, file.toString)
        val out = List.newBuilder[String]
        var error = Option.empty[String]
        var next = reader.next()
        while (next.isDefined && error.isEmpty) {
          next.get.fold(e => error = Some(e), l => out += l._1)
          next = reader.next()
        }
        error.toLeft(out.result())
      } finally in.close()
    }

  /** The lines of a file as a stream, numbered from 1, checked as [[lines]] checks them, without holding them: the first
    * bad line (not UTF-8, too long) fails the stream naming it. Read in batches of `batch` lines, or fewer that reach
    * `batchChars`, per blocking call: what a consumer holds in flight is a few batches, whatever the lines' length.
    */
  def stream(file: os.Path, what: String = "", batch: Int = LineReader.BatchLines, batchChars: Int = LineReader.BatchChars)
      : fs2.Stream[cats.effect.IO, (String, Int)] = {
    import cats.effect.{IO, Resource}
    fs2.Stream.resource(Resource.fromAutoCloseable(IO.blocking {
      problem(file, what, whole = false).foreach(p => throw Failure.BadInput(p))
      Files.newInputStream(file.toNIO)
    })).flatMap { in =>
      val reader = new LineReader(in, file.toString)
      fs2.Stream.repeatEval(IO.blocking {
        reader.batch(batch, batchChars).map(_.fold(e => throw Failure.BadInput(e), identity))
      }).takeWhile(_.nonEmpty).unchunks
    }
  }

  private def bytes(file: os.Path, what: String): Either[String, Array[Byte]] =
    try Right(Files.readAllBytes(file.toNIO))
    catch {
      case _: NoSuchFileException => Left(s"${named(file, what)}: no such file")
      case e: java.io.IOException => Left(s"${named(file, what)} cannot be read: ${e.getClass.getSimpleName}")
    }

  /** `what file`, or `--value @file` when what is a flag's prefix. */
  private def named(file: os.Path, what: String): String =
    if (what.isEmpty) file.toString else if (what.endsWith("@")) s"$what$file" else s"$what $file"

  private def nextLine(bytes: Array[Byte], from: Int): Int = bytes.indexOf('\n'.toByte, from) match { case -1 => bytes.length; case i => i }

  private[base] def decode(bytes: Array[Byte]): Either[CharacterCodingException, String] = decode(bytes, bytes.length)

  private[base] def decode(bytes: Array[Byte], length: Int): Either[CharacterCodingException, String] =
    try Right(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes, 0, length)).toString)
    catch { case e: CharacterCodingException => Left(e) }
}

/** Lines of a stream of bytes, numbered from 1, each decoded as UTF-8 on its own: a line that is not UTF-8 is named by
  * its own number (a decoder over the whole stream fails per buffer, thousands of lines off), and a line longer than
  * [[LineReader.MaxLineBytes]] is refused before it fills the heap. A final `\r` is dropped, as readLine drops it.
  */
final class LineReader(in: InputStream, source: String) {
  private val chunk = new Array[Byte](65536)
  private var chunkStart = 0
  private var chunkEnd = 0
  private var line = new Array[Byte](8192)
  private var number = 0
  private var ended = false

  /** The next line, an error naming `source:LINE` (after which there is none), or None at the end. */
  def next(): Option[Either[String, (String, Int)]] =
    if (ended) None
    else {
      number += 1
      var length = 0
      var newline = false
      while (!newline && !ended && length <= LineReader.MaxLineBytes) {
        if (chunkStart == chunkEnd) {
          chunkStart = 0
          chunkEnd = math.max(in.read(chunk), 0)
          if (chunkEnd == 0) ended = true
        }
        if (!ended) {
          var i = chunkStart
          while (i < chunkEnd && chunk(i) != '\n') i += 1
          val n = i - chunkStart
          if (length + n <= LineReader.MaxLineBytes) {
            if (length + n > line.length)
              line = java.util.Arrays.copyOf(line, math.max(length + n, math.min(line.length * 2, LineReader.MaxLineBytes)))
            System.arraycopy(chunk, chunkStart, line, length, n)
          }
          length += n
          newline = i < chunkEnd
          chunkStart = if (newline) i + 1 else i
        }
      }
      if (length > LineReader.MaxLineBytes) {
        ended = true
        Some(Left(s"$source:$number: line longer than ${LineReader.MaxLineBytes / 1024 / 1024} MiB, the limit of one line"))
      } else if (!newline && length == 0) None
      else {
        val end = if (length > 0 && line(length - 1) == '\r') length - 1 else length
        TextFile.decode(line, end) match {
          case Right(text) => Some(Right(text -> number))
          case Left(_) => ended = true; Some(Left(s"$source:$number: not UTF-8 text"))
        }
      }
    }

  /** Up to `lines` lines, or fewer once their characters reach `chars`, read in one call (a stream's blocking read per
    * chunk): what a consumer holds in flight is a few batches, whatever the lines' length. It ends after an error; empty at
    * the end. `waiting = false`: after the first line, only lines already read whole (a terminal's or a pipe's reader
    * takes what has arrived and does not wait for more).
    */
  def batch(lines: Int = LineReader.BatchLines, chars: Int = LineReader.BatchChars, waiting: Boolean = true)
      : fs2.Chunk[Either[String, (String, Int)]] = {
    val out = new Array[Either[String, (String, Int)]](lines)
    var n = 0
    var size = 0
    var next = if (lines > 0) this.next() else None
    while (next.isDefined) {
      out(n) = next.get
      n += 1
      next.get.foreach(l => size += l._1.length)
      next = if (n < lines && size < chars && next.get.isRight && (waiting || lineRead)) this.next() else None
    }
    fs2.Chunk.array(out, 0, n)
  }

  /** Whether a whole line is in the buffer already: the next line then needs no read. */
  private def lineRead: Boolean = {
    var i = chunkStart
    while (i < chunkEnd && chunk(i) != '\n') i += 1
    i < chunkEnd
  }
}

object LineReader {
  val MaxLineBytes: Int = JsonInput.MaxChars

  /** A batch's size in lines and characters: a few batches in flight stay small, and a batch a read keeps hand-offs
    * between threads few (256 lines a read was a fifth of restore's CPU in workers being woken).
    */
  val BatchLines = 1024
  val BatchChars: Int = 256 * 1024

  /** The UTF-8 size of `line` when it is longer than a line this reads back; None when it fits. A writer checks with it, so
    * a file it writes is one bankops reads. Encoded only when the characters alone could be too many (3 bytes a char).
    */
  def overLimit(line: String): Option[Long] =
    if (line.length.toLong * 3 <= MaxLineBytes) None
    else Some(line.getBytes(java.nio.charset.StandardCharsets.UTF_8).length.toLong).filter(_ > MaxLineBytes)

  /** A size over the limit in whole MiB, rounded up: one byte over 32 MiB never reads as "32 MiB, over the 32 MiB". */
  def mib(bytes: Long): Long = (bytes + 1048575) / 1048576

  /** A writer's refusal of a record whose line (`kind`) would be `bytes` long: the one wording of capture and replay. */
  def refusal(record: String, bytes: Long, kind: String): String =
    s"the record at $record takes ${mib(bytes)} MiB as $kind, over the ${MaxLineBytes / 1048576} MiB a line can hold"
}

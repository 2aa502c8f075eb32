package bankops.jobs.capture

import cats.effect.IO
import io.circe.Decoder

import java.io.InputStream
import java.security.MessageDigest
import java.util.zip.{ZipException, ZipFile}
import scala.jdk.CollectionConverters._
import scala.util.Using

import bankops.base.{Failure, JsonInput, LineReader, TextFile}

/** An archive opened and checked: a ZIP with a manifest of a format and version this bankops reads, every file the
  * manifest names present with its size and SHA-256. Anything else is one line naming what is wrong.
  */
private[capture] final class ArchiveReader private (val path: os.Path, zip: ZipFile, val manifest: ArchiveManifest, deferred: Set[String])
    extends AutoCloseable {
  def close(): Unit = zip.close()

  // The deferred files whose first reading has matched their checksums.
  private val matched = java.util.concurrent.ConcurrentHashMap.newKeySet[String]()

  def has(name: String): Boolean = zip.getEntry(name) != null

  def text(name: String): Either[String, String] =
    Option(zip.getEntry(name)).toRight(s"$path: no $name in the archive").flatMap(e => ArchiveReader.read(path, zip, e))

  def json[A: Decoder](name: String): Either[String, A] =
    text(name).flatMap(t => JsonInput.parse(t).flatMap(_.as[A].left.map(_.getMessage)).left.map(e => s"$path: $name: $e"))

  /** The entry that holds the file of JSON lines `name`: itself (versions 1 and 2), or its zstd frame (version 3). */
  private def entryOf(name: String): String =
    if (zip.getEntry(name) == null && zip.getEntry(ArchiveParts.compressed(name)) != null) ArchiveParts.compressed(name) else name

  /** Each line of a file of the archive, with its number, inflated as the stream is pulled: no file is held whole. A file
    * whose checksum `open` deferred is digested as it is read, the first time, and never read past the manifest's size:
    * that stream fails at its end, naming the mismatch, if the bytes were not the manifest's. A zstd frame (version 3)
    * is checked as stored and decompressed as read, never past [[ArchiveReader.MaxRatio]] times its stored size.
    */
  def stream(name: String): fs2.Stream[IO, Either[String, (String, Int)]] = {
    val entry = entryOf(name)
    val digested = manifest.files.find(f => deferred(f.name) && f.name == entry && !matched.contains(entry))
    val opened = IO.blocking {
      val e = Option(zip.getEntry(entry)).getOrElse(throw Failure.BadInput(s"$path: no $name in the archive, which its manifest names"))
      val in = zip.getInputStream(e)
      val counted = digested.map(f => new ArchiveReader.Digesting(in, f.bytes + 1))
      val stored = counted.getOrElse(in)
      val lines = try if (entry == name) stored else ArchiveReader.unzstd(path, name, stored, e.getSize)
      catch { case t: Throwable => in.close(); throw t }
      (in, counted, lines)
    }
    fs2.Stream.bracket(opened) { case (in, _, lines) => IO.blocking { lines.close(); in.close() } }.flatMap { case (_, counted, lines) =>
      val reader = new LineReader(lines, s"$path:$name")
      // Batches as TextFile.stream reads them: a blocking read and a parsing task per batch.
      (fs2.Stream.repeatEval(IO.blocking(reader.batch())).takeWhile(_.nonEmpty).unchunks ++
        fs2.Stream.exec(counted.zip(digested).fold(IO.unit) { case (c, f) =>
          IO.blocking {
            c.drain()
            if (c.total != f.bytes || c.sha256 != f.sha256) throw Failure.BadInput(ArchiveReader.mismatch(path, entry))
            matched.add(entry); ()
          }
        })).handleErrorWith {
        // Bytes that do not inflate: changed after capture (the checksum says so), or damaged.
        case e: java.io.IOException =>
          fs2.Stream.eval(IO.interruptible(verify(name))).flatMap(checked =>
            fs2.Stream.raiseError[IO](
              Failure.BadInput(checked.fold(identity, _ => s"$path: $name cannot be read (${e.getMessage}): the archive is damaged"))))
        case e => fs2.Stream.raiseError[IO](e)
      }
    }
  }

  /** A deferred file's checksum checked now, in a pass of its own: for a first reading that failed before its end, whose
    * cause may be bytes that are not the manifest's (then the mismatch is the line to say, not the line that broke).
    */
  def verify(name: String): Either[String, Unit] =
    manifest.files.find(_.name == entryOf(name)).fold[Either[String, Unit]](Right(()))(f => ArchiveReader.verify(path, zip, f))
}

private[capture] object ArchiveReader {

  /** How many times its stored size a file of an archive may inflate to, once it is large. Capture's JSON lines of
    * Avro bytes deflate to a few times smaller; a file far past this is built to exhaust the reader (a zip bomb).
    */
  val MaxRatio = 100
  private val RatioFrom = 16L * 1024 * 1024

  /** `deferRecords`: the records files' checksums are left to their first reading ([[ArchiveReader.stream]]), for a
    * job that reads each one whole before it acts (restore), instead of a pass of their own here: their sizes are
    * checked here all the same.
    */
  def open(path: os.Path, deferRecords: Boolean = false): Either[String, ArchiveReader] =
    TextFile.problem(path, "archive", whole = false).toLeft(()).flatMap { _ =>
      val zip = try Right(new ZipFile(path.toIO))
      catch {
        case e: ZipException => Left(s"$path is not a bankops capture archive, or it is cut short (${e.getMessage})")
        case e: java.io.IOException => Left(s"$path cannot be read (${e.getMessage})")
      }
      zip.flatMap { z =>
        val checked = try for {
          _ <- duplicate(z).map(n => s"$path: two entries named $n: not an archive capture wrote").toLeft(())
          entry <- Option(z.getEntry(ArchiveParts.ManifestFile)).toRight(s"$path: no ${ArchiveParts.ManifestFile}: not a bankops capture archive")
          text <- read(path, z, entry)
          json <- JsonInput.parse(text).left.map(e => s"$path: ${ArchiveParts.ManifestFile}: $e")
          format = json.hcursor.get[String]("format").toOption
          version = json.hcursor.get[Int]("version").toOption
          _ <-
            Either.cond(format.contains(ArchiveManifest.Format), (), s"$path: not a bankops capture archive (format ${format.getOrElse("missing")})")
          _ <- Either.cond(version.exists(_ <= ArchiveManifest.Version), (),
            s"$path: archive format version ${version.getOrElse("missing")} is newer than this bankops reads (${ArchiveManifest.Version}): " +
              "restore it with a newer bankops")
          manifest <- json.as[ArchiveManifest].left.map(e => s"$path: ${ArchiveParts.ManifestFile}: ${e.getMessage}")
          // One entry a file: a file's checksum is looked up by its name.
          _ <- manifest.files.groupBy(_.name).collectFirst { case (n, fs) if fs.size > 1 => n }
            .map(n => s"$path: ${ArchiveParts.ManifestFile} names $n twice: not an archive capture wrote").toLeft(())
          deferred =
            if (deferRecords) manifest.topics.map(t => ArchiveParts.records(t.topic)).flatMap(n => List(n, ArchiveParts.compressed(n))).toSet
            else Set.empty[String]
          _ <- manifest.files.foldLeft[Either[String, Unit]](Right(()))((acc, f) =>
            acc.flatMap(_ => if (deferred(f.name)) sized(path, z, f) else verify(path, z, f)))
        } yield new ArchiveReader(path, z, manifest, deferred)
        catch { case t: Throwable => z.close(); throw t }
        if (checked.isLeft) z.close()
        checked
      }
    }

  /** A small file of the archive (a manifest, schemas, groups): bounded as JSON input is, a damaged entry named. */
  private[capture] def read(path: os.Path, zip: ZipFile, e: java.util.zip.ZipEntry): Either[String, String] =
    try Using.resource(zip.getInputStream(e)) { in =>
        val bytes = in.readNBytes(JsonInput.MaxChars + 1)
        if (bytes.length > JsonInput.MaxChars) Left(s"$path: ${e.getName} is larger than a JSON file bankops reads (32 MiB)")
        else Right(new String(bytes, "UTF-8"))
      }
    catch { case ex: java.io.IOException => Left(s"$path: ${e.getName} cannot be read (${ex.getMessage}): the archive is damaged") }

  private def duplicate(zip: ZipFile): Option[String] =
    zip.entries().asScala.map(_.getName).toList.groupBy(identity).collectFirst { case (n, l) if l.size > 1 => n }

  /** A file as the manifest names it: its declared sizes checked before a byte is inflated, then never read past the
    * size the manifest gives; its checksum last. Interruptible: a large file is seconds of reading.
    */
  private def verify(path: os.Path, zip: ZipFile, file: ArchiveFile): Either[String, Unit] =
    sized(path, zip, file).flatMap { _ =>
      val d = try Using.resource(new Digesting(zip.getInputStream(zip.getEntry(file.name)), file.bytes + 1))(d => { d.drain(); d })
      catch { case ex: java.io.IOException => return Left(s"$path: ${file.name} cannot be read (${ex.getMessage}): the archive is damaged") }
      if (d.total != file.bytes || d.sha256 != file.sha256) Left(mismatch(path, file.name)) else Right(())
    }

  /** A file as the manifest names it, by what the ZIP's directory declares, before a byte of it is inflated. */
  private def sized(path: os.Path, zip: ZipFile, file: ArchiveFile): Either[String, Unit] =
    Option(zip.getEntry(file.name)).toRight(s"$path: ${file.name} is missing: the archive is cut short or was changed").flatMap { e =>
      if (e.getSize >= 0 && e.getSize != file.bytes) Left(mismatch(path, file.name))
      else if (file.bytes > RatioFrom && e.getCompressedSize >= 0 && file.bytes > MaxRatio * (e.getCompressedSize max 1))
        Left(s"$path: ${file.name} would inflate from ${e.getCompressedSize} to ${file.bytes} bytes, more than $MaxRatio times: " +
          "not an archive capture wrote (a zip bomb?); nothing was read")
      else Right(())
    }

  /** The lines of a zstd frame as they are decompressed, never more than [[MaxRatio]] times its stored size once that is
    * past 16 MiB (a frame built to exhaust the reader is refused as a deflated file is). zstd's native library loads
    * here, at the first frame: where it cannot, the line says so.
    */
  private def unzstd(path: os.Path, name: String, stored: InputStream, size: Long): InputStream = {
    val frame = ArchiveParts.zstd(s"$path: $name is a zstd frame (archive version 3)")(new com.github.luben.zstd.ZstdInputStream(stored))
    val limit = (MaxRatio * (size max 1)) max RatioFrom
    new ArchiveParts.BlockInput(frame) {
      private var total = 0L
      override def read(b: Array[Byte], off: Int, len: Int): Int = {
        val n = in.read(b, off, len)
        if (n > 0) total += n
        if (total > limit)
          throw Failure.BadInput(s"$path: $name would inflate from $size to more than $limit bytes, more than $MaxRatio times: " +
            "not an archive capture wrote (a zip bomb?)")
        n
      }
    }
  }

  private def mismatch(path: os.Path, name: String): String =
    s"$path: $name does not match its checksum in the manifest: the archive was changed or damaged"

  /** A file's bytes as they are read, counted and digested, never past `limit` (the manifest's size and one more byte, to
    * tell a longer file). Interruptible: a large file is seconds of reading.
    */
  private final class Digesting(in: InputStream, limit: Long) extends ArchiveParts.BlockInput(in) {
    private val digest = MessageDigest.getInstance("SHA-256")
    var total = 0L

    override def read(b: Array[Byte], off: Int, len: Int): Int =
      if (total >= limit) -1
      else {
        if (Thread.interrupted()) throw new InterruptedException("reading the archive")
        val n = in.read(b, off, (len.toLong min (limit - total)).toInt)
        if (n > 0) { digest.update(b, off, n); total += n }
        n
      }

    override def skip(n: Long): Long = throw new UnsupportedOperationException("a digested file is read, not skipped")

    /** Reads what is left (to the limit), so that the digest covers the whole file. */
    def drain(): Unit = { val buf = new Array[Byte](65536); while (read(buf, 0, buf.length) >= 0) () }

    def sha256: String = digest.digest().map("%02x".format(_)).mkString
  }
}

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
private[capture] final class ArchiveReader private (val path: os.Path, zip: ZipFile, val manifest: ArchiveManifest) extends AutoCloseable {
  def close(): Unit = zip.close()

  def has(name: String): Boolean = zip.getEntry(name) != null

  def text(name: String): Either[String, String] =
    Option(zip.getEntry(name)).toRight(s"$path: no $name in the archive").flatMap(e => ArchiveReader.read(path, zip, e))

  def json[A: Decoder](name: String): Either[String, A] =
    text(name).flatMap(t => JsonInput.parse(t).flatMap(_.as[A].left.map(_.getMessage)).left.map(e => s"$path: $name: $e"))

  /** Each line of a file of the archive, with its number, inflated as the stream is pulled: no file is held whole. */
  def stream(name: String): fs2.Stream[IO, Either[String, (String, Int)]] =
    fs2.Stream.bracket(IO.blocking(Option(zip.getEntry(name)).map(zip.getInputStream).getOrElse(
          throw Failure.BadInput(s"$path: no $name in the archive, which its manifest names"))))(in => IO.blocking(in.close())).flatMap { in =>
      val reader = new LineReader(in, s"$path:$name")
      fs2.Stream.fromBlockingIterator[IO](Iterator.continually(reader.next()).takeWhile(_.isDefined).flatten, 256)
    }
}

private[capture] object ArchiveReader {

  /** How many times its stored size a file of an archive may inflate to, once it is large. Capture's JSON lines of
    * Avro bytes deflate to a few times smaller; a file far past this is built to exhaust the reader (a zip bomb).
    */
  val MaxRatio = 100
  private val RatioFrom = 16L * 1024 * 1024

  def open(path: os.Path): Either[String, ArchiveReader] =
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
          _ <- manifest.files.foldLeft[Either[String, Unit]](Right(()))((acc, f) => acc.flatMap(_ => verify(path, z, f)))
        } yield new ArchiveReader(path, z, manifest)
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
    Option(zip.getEntry(file.name)).toRight(s"$path: ${file.name} is missing: the archive is cut short or was changed").flatMap { e =>
      val mismatch = s"$path: ${file.name} does not match its checksum in the manifest: the archive was changed or damaged"
      if (e.getSize >= 0 && e.getSize != file.bytes) Left(mismatch)
      else if (file.bytes > RatioFrom && e.getCompressedSize >= 0 && file.bytes > MaxRatio * (e.getCompressedSize max 1))
        Left(s"$path: ${file.name} would inflate from ${e.getCompressedSize} to ${file.bytes} bytes, more than $MaxRatio times: " +
          "not an archive capture wrote (a zip bomb?); nothing was read")
      else {
        val (bytes, sha) = try digest(zip.getInputStream(e), file.bytes + 1)
        catch { case ex: java.io.IOException => return Left(s"$path: ${file.name} cannot be read (${ex.getMessage}): the archive is damaged") }
        if (bytes != file.bytes || sha != file.sha256) Left(mismatch) else Right(())
      }
    }

  private def digest(in: InputStream, limit: Long): (Long, String) = Using.resource(in) { s =>
    val d = MessageDigest.getInstance("SHA-256")
    val buf = new Array[Byte](65536)
    var total = 0L
    var n = s.read(buf, 0, (limit min buf.length).toInt)
    while (n > 0) {
      if (Thread.interrupted()) throw new InterruptedException("reading the archive")
      d.update(buf, 0, n); total += n
      n = if (total >= limit) -1 else s.read(buf, 0, ((limit - total) min buf.length).toInt)
    }
    (total, d.digest().map("%02x".format(_)).mkString)
  }
}

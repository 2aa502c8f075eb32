package bankops.jobs.capture

import io.circe.Decoder

import java.io.InputStream
import java.security.MessageDigest
import java.util.zip.{ZipException, ZipFile}
import scala.util.Using

import bankops.base.{Failure, JsonInput, LineReader, TextFile}

/** An archive opened and checked: a ZIP with a manifest of a format and version this bankops reads, every file the
  * manifest names present with its size and SHA-256. Anything else is one line naming what is wrong.
  */
private[capture] final class ArchiveReader private (path: os.Path, zip: ZipFile, val manifest: ArchiveManifest) extends AutoCloseable {
  def close(): Unit = zip.close()

  def has(name: String): Boolean = zip.getEntry(name) != null

  def text(name: String): Either[String, String] =
    Option(zip.getEntry(name)).toRight(s"$path: no $name in the archive").flatMap(e => ArchiveReader.read(path, zip, e))

  def json[A: Decoder](name: String): Either[String, A] =
    text(name).flatMap(t => JsonInput.parse(t).flatMap(_.as[A].left.map(_.getMessage)).left.map(e => s"$path: $name: $e"))

  /** Each line of a file of the archive, with its number. */
  def lines[A](name: String)(f: Iterator[Either[String, (String, Int)]] => A): A =
    Using.resource(Option(zip.getEntry(name)).map(zip.getInputStream).getOrElse(
        throw Failure.BadInput(s"$path: no $name in the archive, which its manifest names"))) { in =>
      val reader = new LineReader(in, s"$path:$name")
      f(Iterator.continually(reader.next()).takeWhile(_.isDefined).flatten)
    }
}

private[capture] object ArchiveReader {
  def open(path: os.Path): Either[String, ArchiveReader] =
    TextFile.problem(path, "archive", whole = false).toLeft(()).flatMap { _ =>
      val zip = try Right(new ZipFile(path.toIO))
      catch {
        case e: ZipException => Left(s"$path is not a bankops capture archive, or it is cut short (${e.getMessage})")
        case e: java.io.IOException => Left(s"$path cannot be read (${e.getMessage})")
      }
      zip.flatMap { z =>
        val checked = for {
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

  private def verify(path: os.Path, zip: ZipFile, file: ArchiveFile): Either[String, Unit] =
    Option(zip.getEntry(file.name)).toRight(s"$path: ${file.name} is missing: the archive is cut short or was changed").flatMap { e =>
      val (bytes, sha) = try digest(zip.getInputStream(e))
      catch { case ex: java.io.IOException => return Left(s"$path: ${file.name} cannot be read (${ex.getMessage}): the archive is damaged") }
      if (bytes != file.bytes || sha != file.sha256)
        Left(s"$path: ${file.name} does not match its checksum in the manifest: the archive was changed or damaged")
      else Right(())
    }

  private def digest(in: InputStream): (Long, String) = Using.resource(in) { s =>
    val d = MessageDigest.getInstance("SHA-256")
    val buf = new Array[Byte](65536)
    var total = 0L
    var n = s.read(buf)
    while (n >= 0) { d.update(buf, 0, n); total += n; n = s.read(buf) }
    (total, d.digest().map("%02x".format(_)).mkString)
  }
}

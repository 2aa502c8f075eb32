package bankops.jobs.capture

import cats.effect.{IO, Resource}

import java.io.{FilterOutputStream, OutputStream}
import java.security.MessageDigest
import java.util.zip.{Deflater, ZipEntry, ZipOutputStream}

/** Writes an archive's files one after another into a ZIP stream, each one's size and SHA-256 taken as it is written. */
private[capture] final class ArchiveWriter(out: OutputStream) {
  // The fastest deflate: JSON lines shrink about as much (they are mostly base64 and names), at a fraction of the CPU.
  private val zip = { val z = new ZipOutputStream(out); z.setLevel(Deflater.BEST_SPEED); z }
  private var written = List.empty[ArchiveFile]

  def files: List[ArchiveFile] = written.reverse

  /** A file of the archive, written by `body` (which must not close the stream it is given). */
  def file[A](name: String, level: Int = Deflater.BEST_SPEED)(body: OutputStream => IO[A]): IO[A] = {
    val digest = MessageDigest.getInstance("SHA-256")
    var bytes = 0L
    val counted = new FilterOutputStream(zip) {
      override def write(b: Int): Unit = { zip.write(b); digest.update(b.toByte); bytes += 1 }
      override def write(b: Array[Byte], off: Int, len: Int): Unit = { zip.write(b, off, len); digest.update(b, off, len); bytes += len }
      override def close(): Unit = ()
    }
    IO.blocking { zip.setLevel(level); zip.putNextEntry(new ZipEntry(name)) } >> body(counted).flatTap(_ =>
      IO.blocking {
        zip.closeEntry()
        written = ArchiveFile(name, bytes, digest.digest().map("%02x".format(_)).mkString) :: written
      })
  }

  /** A file of JSON lines, `name`, stored as one zstd frame in the entry `name.zst` (not deflated again): zstd at level
    * 1 takes a fifth of deflate's CPU for a smaller file (docs/performance.md). Its size and checksum are the frame's.
    */
  def lines[A](name: String)(body: OutputStream => IO[A]): IO[A] =
    file(ArchiveParts.compressed(name), Deflater.NO_COMPRESSION)(entry =>
      Resource.make(IO.blocking(ArchiveParts.zstd("capture writes its records as zstd frames")(
            new com.github.luben.zstd.ZstdOutputStream(entry, 1))))(z => IO.blocking(z.close())).use(body))

  def text(name: String, content: String): IO[Unit] = file(name)(s => IO.blocking(s.write(content.getBytes("UTF-8"))))

  /** Ends the ZIP stream (its central directory) without closing the file under it. */
  def finish(): IO[Unit] = IO.blocking(zip.finish())
}

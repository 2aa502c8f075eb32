package bankops.support

import java.util.zip.{ZipEntry, ZipFile, ZipOutputStream}
import scala.jdk.CollectionConverters._

/** A capture archive's files as a forger or a test reads them: each file of JSON lines by its name and its text, whether
  * the archive stores it deflated (versions 1 and 2) or as a zstd frame under `NAME.zst` (version 3).
  */
object ArchiveEntries {

  /** A file: `name` as restore names it, `bytes` its content; `zstd` whether it is stored as a frame, `read` the bytes
    * it was stored as (kept while its content is unchanged: a frame compressed anew would not be the same bytes).
    */
  final case class Entry(name: String, bytes: Array[Byte], zstd: Boolean, read: Option[Array[Byte]] = None) {
    def storedName: String = if (zstd) s"$name.zst" else name
    lazy val stored: Array[Byte] = read.getOrElse(if (zstd) com.github.luben.zstd.Zstd.compress(bytes, 1) else bytes)

    /** This file with content `b`: itself when `b` is its content. */
    def withBytes(b: Array[Byte]): Entry = if (java.util.Arrays.equals(b, bytes)) this else Entry(name, b, zstd)

    /** This file as version 1 stored it: deflated by the ZIP. */
    def deflated: Entry = Entry(name, bytes, zstd = false)
  }

  def read(archive: os.Path): List[Entry] = {
    val in = new ZipFile(archive.toIO)
    try in.entries().asScala.toList.map { e =>
        val bytes = in.getInputStream(e).readAllBytes()
        if (e.getName.endsWith(".zst"))
          Entry(e.getName.stripSuffix(".zst"), com.github.luben.zstd.Zstd.decompress(bytes, frameSize(bytes)), zstd = true, read = Some(bytes))
        else Entry(e.getName, bytes, zstd = false)
      }
    finally in.close()
  }

  /** A file's text, stored either way. */
  def text(archive: os.Path, name: String): String =
    read(archive).find(_.name == name).map(e => new String(e.bytes, "UTF-8")).getOrElse(throw new NoSuchElementException(s"$archive: no $name"))

  /** Writes the entries, in order, as they are stored. */
  def write(out: os.Path, entries: List[Entry]): os.Path = {
    val zip = new ZipOutputStream(os.write.outputStream(out))
    try entries.foreach { e => zip.putNextEntry(new ZipEntry(e.storedName)); zip.write(e.stored); zip.closeEntry() }
    finally zip.close()
    out
  }

  // A streamed frame does not declare its size: decompressed through the stream instead.
  private def frameSize(frame: Array[Byte]): Int = {
    val in = new com.github.luben.zstd.ZstdInputStream(new java.io.ByteArrayInputStream(frame))
    try in.readAllBytes().length
    finally in.close()
  }
}

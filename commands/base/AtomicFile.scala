package bankops.base

import java.nio.ByteBuffer
import java.nio.channels.FileChannel
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, StandardCopyOption, StandardOpenOption}
import java.nio.file.attribute.PosixFilePermissions

/** A file replaced whole: a reader at any moment, even another process, sees the old text or the new, never an empty
  * or half-written file, and a crash leaves one of the two. For the files jobs read while another rewrites them (the
  * contexts, a running sandbox's connection and client properties).
  */
object AtomicFile {
  def write(file: os.Path, text: String, perms: String = "rw-------"): Unit = {
    // A name of its own (two writers never share it), created with its permissions and written through the channel
    // that created it (never reopened by name), on disk before it replaces the file.
    val attrs = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(perms))
    val partial = Files.createTempFile((file / os.up).toNIO, s".${file.last}.", ".partial", attrs)
    try {
      val channel = FileChannel.open(partial, StandardOpenOption.WRITE)
      try {
        channel.write(ByteBuffer.wrap(text.getBytes(UTF_8)))
        channel.force(true)
      } finally channel.close()
      Files.move(partial, file.toNIO, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
    } finally Files.deleteIfExists(partial)
  }
}

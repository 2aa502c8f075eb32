package bankops.services.config

import java.security.KeyStore
import java.util.concurrent.ConcurrentHashMap
import scala.util.Try

/** Key and trust stores opened once per process. A PKCS12 store's password derivation costs hundreds of milliseconds on
  * a small machine, and a job opened the same store up to three times before its first client (the settings check, the
  * registry's TLS, the identity it names in refusals). Kept in memory only, and opened again when the file changes.
  */
object KeyStores {
  private final case class Key(tpe: String, path: os.Path, size: Long, modified: Long, password: Option[String])
  private val opened = new ConcurrentHashMap[Key, Try[KeyStore]]()

  /** The store at `path` opened as `tpe` with `password`, or why it did not open (the caller names the setting). */
  def open(tpe: String, path: os.Path, password: Option[String]): Try[KeyStore] = {
    val stat = Try(os.stat(path))
    val key = Key(tpe, path, stat.map(_.size).getOrElse(-1L), stat.map(_.mtime.toMillis).getOrElse(-1L), password)
    opened.computeIfAbsent(key, _ => load(tpe, path, password))
  }

  private def load(tpe: String, path: os.Path, password: Option[String]): Try[KeyStore] = Try {
    val ks = KeyStore.getInstance(tpe)
    val in = os.read.inputStream(path)
    try ks.load(in, password.map(_.toCharArray).orNull)
    finally in.close()
    ks
  }
}

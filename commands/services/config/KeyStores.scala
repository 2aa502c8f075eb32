package bankops.services.config

import java.security.{KeyStore, MessageDigest}
import java.util.concurrent.ConcurrentHashMap
import scala.util.{Success, Try}

/** Key and trust stores opened once per process. A PKCS12 store's password derivation costs hundreds of milliseconds on
  * a small machine, and a job opened the same store up to three times before its first client (the settings check, the
  * registry's TLS, the identity it names in refusals). Kept in memory only and never changed by a reader; opened again
  * when the file changes, and a store that did not open is tried again on the next ask (a fixed permission counts).
  */
object KeyStores {
  // The password's digest, not the password: the key outlives the settings that held it.
  private final case class Key(tpe: String, path: os.Path, size: Long, modified: Long, password: Option[Seq[Byte]])
  private val opened = new ConcurrentHashMap[Key, KeyStore]()

  /** The store at `path` opened as `tpe` with `password`, or why it did not open (the caller names the setting). */
  def open(tpe: String, path: os.Path, password: Option[String]): Try[KeyStore] = {
    val stat = Try(os.stat(path))
    val digest = password.map(KeyStores.digest)
    val key = Key(tpe, path, stat.map(_.size).getOrElse(-1L), stat.map(_.mtime.toMillis).getOrElse(-1L), digest)
    Option(opened.get(key)).fold(load(tpe, path, password).map(ks => Option(opened.putIfAbsent(key, ks)).getOrElse(ks)))(Success(_))
  }

  /** A secret's SHA-256, to tell settings apart by it without keeping the secret in a cache key. */
  private[config] def digest(secret: String): Seq[Byte] = MessageDigest.getInstance("SHA-256").digest(secret.getBytes("UTF-8")).toSeq

  private def load(tpe: String, path: os.Path, password: Option[String]): Try[KeyStore] = Try {
    val ks = KeyStore.getInstance(tpe)
    val in = os.read.inputStream(path)
    try ks.load(in, password.map(_.toCharArray).orNull)
    finally in.close()
    ks
  }
}

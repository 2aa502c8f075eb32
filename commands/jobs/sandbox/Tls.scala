package bankops.jobs.sandbox

import cats.effect.IO

import java.security.{KeyStore, PrivateKey}
import java.security.cert.X509Certificate
import java.util.Base64

/** One client identity's key material: a PKCS12 keystore for JVM clients, PEM copies for kcat and confluent-kafka. */
private[sandbox] final case class IdentityFiles(name: String, keystore: os.Path, certPem: os.Path, keyPem: os.Path) {
  def all: List[os.Path] = List(keystore, certPem, keyPem)
}

/** The sandbox's TLS material, made once ([[Certificates]]): a CA, the brokers' keystore (also serving the registry over
  * HTTPS), a client truststore, and one client certificate per identity, its subject `CN=<name>` (the brokers map that
  * subject to the principal `User:<name>`). Files holding a private key are the owner's alone.
  */
private[sandbox] final case class TlsFiles(dir: os.Path) {
  val caP12: os.Path = dir / "ca.p12"
  val caPem: os.Path = dir / "ca.pem"
  val truststore: os.Path = dir / "truststore.p12"
  val broker: os.Path = dir / "broker.p12"
  def identity(name: String): IdentityFiles = IdentityFiles(name, dir / s"$name.p12", dir / s"$name.pem", dir / s"$name.key")
  def complete: Boolean = (List(caP12, caPem, truststore, broker) ++ Identities.all.flatMap(identity(_).all)).forall(os.exists)
}

private[bankops] object Tls {
  /** The brokers' certificate subject; `ssl.principal.mapping.rules` makes it the principal `User:bankops-broker`. */
  val BrokerName = "bankops-broker"

  def ensure(files: TlsFiles, password: String): IO[Unit] =
    IO.blocking(files.complete).ifM(IO.unit, IO.blocking(generate(files, password)))

  /** Made in a directory of its own beside `tls` (the owner's alone, as createTempDirectory makes it) and moved into
    * place whole: an interrupted run leaves no half-made material that [[TlsFiles.complete]] would take for finished, and
    * of two runs at once the second keeps the first's.
    */
  private def generate(f: TlsFiles, password: String): Unit = {
    os.makeDir.all(f.dir / os.up)
    val staging = TlsFiles(os.Path(java.nio.file.Files.createTempDirectory((f.dir / os.up).toNIO, s"${f.dir.last}.new-")))
    try {
      val ca = Certificates.authority("bankops sandbox CA", days = 3650)
      store(staging.caP12, password, secret = true)(_.setKeyEntry("ca", ca.key, password.toCharArray, ca.chain.toArray))
      os.write(staging.caPem, pem("CERTIFICATE", ca.certificate.getEncoded))
      store(staging.truststore, password, secret = false)(_.setCertificateEntry("ca", ca.certificate))
      keystore(staging.broker, "broker", Certificates.leaf(ca, BrokerName, days = 825, server = true, hosts = List("localhost", "127.0.0.1")),
        password)
      Identities.all.foreach { name =>
        val id = staging.identity(name)
        val issued = Certificates.leaf(ca, name, days = 825, server = false)
        keystore(id.keystore, name, issued, password)
        os.write(id.keyPem, pem("PRIVATE KEY", issued.key.getEncoded), perms = "rw-------")
        os.write(id.certPem, issued.chain.map(c => pem("CERTIFICATE", c.getEncoded)).mkString)
      }
      if (!f.complete) {
        os.remove.all(f.dir)
        os.move(staging.dir, f.dir, atomicMove = true)
      }
    } finally os.remove.all(staging.dir) // gone once moved; left by a run that found the material made meanwhile
  }

  /** A client certificate `CN=name` the sandbox's CA signs, valid for `days`, in a keystore at `file` made as the
    * sandbox's own identities' are: for a name the sandbox does not list (the tests' identities that no ACL mentions).
    */
  private[bankops] def signedIdentity(files: TlsFiles, password: String, name: String, days: Int, file: os.Path): Unit = {
    val cas = KeyStore.getInstance("PKCS12")
    scala.util.Using.resource(os.read.inputStream(files.caP12))(cas.load(_, password.toCharArray))
    val ca = Issued(cas.getKey("ca", password.toCharArray).asInstanceOf[PrivateKey],
      cas.getCertificateChain("ca").toList.map(_.asInstanceOf[X509Certificate]))
    keystore(file, name, Certificates.leaf(ca, name, days, server = false), password)
  }

  /** A PKCS12 keystore: the key under `alias` with its chain, and the CA as a trusted entry (as Kafka's clients expect). */
  private def keystore(file: os.Path, alias: String, issued: Issued, password: String): Unit =
    store(file, password, secret = true) { ks =>
      ks.setKeyEntry(alias, issued.key, password.toCharArray, issued.chain.toArray)
      ks.setCertificateEntry("ca", issued.chain.last)
    }

  private def store(file: os.Path, password: String, secret: Boolean)(fill: KeyStore => Unit): Unit = {
    val ks = KeyStore.getInstance("PKCS12")
    ks.load(null, null)
    val bytes = new java.io.ByteArrayOutputStream()
    cheapToOpen { fill(ks); ks.store(bytes, password.toCharArray) }
    os.write(file, bytes.toByteArray, perms = if (secret) "rw-------" else "rw-r--r--")
  }

  /** The JDK's PKCS12 defaults derive the password 10,000 times for the store's MAC, again for its certificates and
    * again for its key: 0.1 to 0.4 CPU-s of every job that opens a sandbox identity's key and trust stores (`topics
    * list`, `inspect --limit 1`; docs/performance.md, The sandbox). Those rounds only slow a guess at a password a
    * person chose; the sandbox's are 24 random characters (142 bits), kept beside the stores in its own files, and the
    * keys are also there as PEM for kcat. So certificates, which are public, are left unencrypted, and the MAC and the
    * key take 1,000 rounds. The JDK reads these settings as system properties when a key is added and when the store
    * is written, so they are set only around those (one store at a time).
    */
  private def cheapToOpen[A](write: => A): A = Tls.synchronized {
    val settings = Map("keystore.pkcs12.certProtectionAlgorithm" -> "NONE", "keystore.pkcs12.macIterationCount" -> "1000",
      "keystore.pkcs12.keyPbeIterationCount" -> "1000")
    val before = settings.keys.map(k => k -> Option(System.getProperty(k))).toMap
    settings.foreach { case (k, v) => System.setProperty(k, v) }
    try write
    finally before.foreach { case (k, v) => v.fold(System.clearProperty(k))(System.setProperty(k, _)) }
  }

  /** PEM for kcat and confluent-kafka: a certificate, or a private key as PKCS#8. */
  private def pem(kind: String, der: Array[Byte]): String =
    s"-----BEGIN $kind-----\n" + Base64.getMimeEncoder(64, "\n".getBytes).encodeToString(der) + s"\n-----END $kind-----\n"
}

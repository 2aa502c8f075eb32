package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._

import java.security.KeyStore
import java.util.Base64

/** One client identity's key material: a PKCS12 keystore for JVM clients, PEM copies for kcat and confluent-kafka. */
private[sandbox] final case class IdentityFiles(name: String, keystore: os.Path, certPem: os.Path, keyPem: os.Path) {
  def all: List[os.Path] = List(keystore, certPem, keyPem)
}

/** The sandbox's TLS material, made once with the JDK's keytool: a CA, the brokers' keystore (also serving the
  * registry over HTTPS), a client truststore, and one client certificate per identity, its subject `CN=<name>`
  * (the brokers map that subject to the principal `User:<name>`).
  * Passwords go to keytool through the environment, never on a command line.
  */
private[sandbox] final case class TlsFiles(dir: os.Path) {
  val caP12: os.Path = dir / "ca.p12"
  val caPem: os.Path = dir / "ca.pem"
  val truststore: os.Path = dir / "truststore.p12"
  val broker: os.Path = dir / "broker.p12"
  def identity(name: String): IdentityFiles = IdentityFiles(name, dir / s"$name.p12", dir / s"$name.pem", dir / s"$name.key")
  def complete: Boolean = (List(caP12, caPem, truststore, broker) ++ Identities.all.flatMap(identity(_).all)).forall(os.exists)
}

private[sandbox] object Tls {
  private val PassEnv = "BANKOPS_TLS_PASSWORD"

  /** The brokers' certificate subject; `ssl.principal.mapping.rules` makes it the principal `User:bankops-broker`. */
  val BrokerName = "bankops-broker"

  def ensure(files: TlsFiles, password: String): IO[Unit] =
    IO.blocking(files.complete).ifM(IO.unit, generate(files, password))

  private def generate(f: TlsFiles, password: String): IO[Unit] = {
    val keytool = (os.Path(sys.props("java.home")) / "bin" / "keytool").toString
    val env = Map(PassEnv -> password)
    def kt(args: String*): IO[Unit] = Processes.run(keytool +: args, f.dir, env).void
    val store = Seq("-storetype", "PKCS12", s"-storepass:env", PassEnv)
    def keyPair(alias: String, file: os.Path, dname: String, ext: Seq[String], sanAndUse: Seq[String]): IO[Unit] =
      kt(Seq("-genkeypair", "-alias", alias, "-dname", dname, "-keyalg", "RSA", "-keysize", "2048", "-validity", "825", "-keystore", file.toString) ++
          store: _*) >>
        kt(Seq("-certreq", "-alias", alias, "-keystore", file.toString, "-file", s"$alias.csr") ++ store: _*) >>
        kt(Seq("-gencert", "-alias", "ca", "-keystore", f.caP12.toString, "-infile", s"$alias.csr", "-outfile", s"$alias.crt", "-rfc", "-validity",
            "825") ++ sanAndUse ++ ext ++ store: _*) >>
        kt(Seq("-importcert", "-noprompt", "-alias", "ca", "-file", f.caPem.toString, "-keystore", file.toString) ++ store: _*) >>
        kt(Seq("-importcert", "-noprompt", "-alias", alias, "-file", s"$alias.crt", "-keystore", file.toString) ++ store: _*) >>
        IO.blocking { os.remove(f.dir / s"$alias.csr"); os.remove(f.dir / s"$alias.crt") }.void
    for {
      _ <- IO.blocking { os.remove.all(f.dir); os.makeDir.all(f.dir) }
      _ <- kt(Seq("-genkeypair", "-alias", "ca", "-dname", "CN=bankops sandbox CA", "-ext", "bc:c", "-keyalg", "RSA", "-keysize", "2048",
          "-validity", "3650", "-keystore", f.caP12.toString) ++ store: _*)
      _ <- kt(Seq("-exportcert", "-rfc", "-alias", "ca", "-keystore", f.caP12.toString, "-file", f.caPem.toString) ++ store: _*)
      _ <- kt(Seq("-importcert", "-noprompt", "-alias", "ca", "-file", f.caPem.toString, "-keystore", f.truststore.toString) ++ store: _*)
      _ <- keyPair("broker", f.broker, s"CN=$BrokerName", Seq("-ext", "EKU=serverAuth,clientAuth"), Seq("-ext", "SAN=dns:localhost,ip:127.0.0.1"))
      // Sequential: two keytools at once on two cores slow each other more than they gain.
      _ <- Identities.all.traverse_ { name =>
        val id = f.identity(name)
        keyPair(name, id.keystore, s"CN=$name", Seq("-ext", "EKU=clientAuth"), Nil) >> IO.blocking(writePem(id, password))
      }
    } yield ()
  }

  /** PEM copies of a client's certificate chain and private key (PKCS#8), for kcat and confluent-kafka. */
  private def writePem(id: IdentityFiles, password: String): Unit = {
    val ks = KeyStore.getInstance("PKCS12")
    val in = os.read.inputStream(id.keystore)
    try ks.load(in, password.toCharArray)
    finally in.close()
    def pem(kind: String, der: Array[Byte]) =
      s"-----BEGIN $kind-----\n" + Base64.getMimeEncoder(64, "\n".getBytes).encodeToString(der) + s"\n-----END $kind-----\n"
    val key = ks.getKey(id.name, password.toCharArray)
    os.write.over(id.keyPem, pem("PRIVATE KEY", key.getEncoded), perms = "rw-------")
    os.write.over(id.certPem, ks.getCertificateChain(id.name).map(c => pem("CERTIFICATE", c.getEncoded)).mkString)
  }
}

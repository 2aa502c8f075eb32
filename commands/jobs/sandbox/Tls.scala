package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._

import java.security.KeyStore
import java.util.Base64

/** The sandbox's TLS material, made once with the JDK's keytool: a CA, a broker
  * keystore (also serving the registry over HTTPS), a client truststore and a
  * client keystore (PKCS12), plus PEM copies for non-JVM clients.
  * Passwords go to keytool through the environment, never on a command line.
  */
final case class TlsFiles(dir: os.Path) {
  val caP12: os.Path = dir / "ca.p12"
  val caPem: os.Path = dir / "ca.pem"
  val truststore: os.Path = dir / "truststore.p12"
  val broker: os.Path = dir / "broker.p12"
  val client: os.Path = dir / "client.p12"
  val clientPem: os.Path = dir / "client.pem"
  val clientKey: os.Path = dir / "client.key"
  def complete: Boolean = List(caP12, caPem, truststore, broker, client, clientPem, clientKey).forall(os.exists)
}

object Tls {
  private val PassEnv = "BANKOPS_TLS_PASSWORD"

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
        kt(Seq("-importcert", "-noprompt", "-alias", alias, "-file", s"$alias.crt", "-keystore", file.toString) ++ store: _*)
    for {
      _ <- IO.blocking { os.remove.all(f.dir); os.makeDir.all(f.dir) }
      _ <- kt(Seq("-genkeypair", "-alias", "ca", "-dname", "CN=bankops sandbox CA", "-ext", "bc:c", "-keyalg", "RSA", "-keysize", "2048",
          "-validity", "3650", "-keystore", f.caP12.toString) ++ store: _*)
      _ <- kt(Seq("-exportcert", "-rfc", "-alias", "ca", "-keystore", f.caP12.toString, "-file", f.caPem.toString) ++ store: _*)
      _ <- kt(Seq("-importcert", "-noprompt", "-alias", "ca", "-file", f.caPem.toString, "-keystore", f.truststore.toString) ++ store: _*)
      _ <- keyPair("broker", f.broker, "CN=localhost", Seq("-ext", "EKU=serverAuth,clientAuth"), Seq("-ext", "SAN=dns:localhost,ip:127.0.0.1"))
      _ <- keyPair("client", f.client, "CN=bankops-client", Seq("-ext", "EKU=clientAuth"), Nil)
      _ <- IO.blocking(writePem(f, password))
      _ <- List("broker", "client").traverse_(a => IO.blocking { os.remove(f.dir / s"$a.csr"); os.remove(f.dir / s"$a.crt") })
    } yield ()
  }

  /** PEM copies of the client's certificate chain and private key (PKCS#8), for kcat and confluent-kafka. */
  private def writePem(f: TlsFiles, password: String): Unit = {
    val ks = KeyStore.getInstance("PKCS12")
    val in = os.read.inputStream(f.client)
    try ks.load(in, password.toCharArray)
    finally in.close()
    def pem(kind: String, der: Array[Byte]) =
      s"-----BEGIN $kind-----\n" + Base64.getMimeEncoder(64, "\n".getBytes).encodeToString(der) + s"\n-----END $kind-----\n"
    val key = ks.getKey("client", password.toCharArray)
    os.write.over(f.clientKey, pem("PRIVATE KEY", key.getEncoded), perms = "rw-------")
    os.write.over(f.clientPem, ks.getCertificateChain("client").map(c => pem("CERTIFICATE", c.getEncoded)).mkString)
  }
}

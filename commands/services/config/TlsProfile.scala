package bankops.services.config

import java.io.ByteArrayInputStream
import java.security.cert.{CertificateFactory, X509Certificate}
import java.security.spec.PKCS8EncodedKeySpec
import java.security.{KeyFactory, KeyStore, PrivateKey}
import java.util.Base64
import javax.net.ssl.{KeyManagerFactory, SSLContext, TrustManagerFactory}
import scala.jdk.CollectionConverters._

/** One TLS profile for the broker and the registry: the Kafka `ssl.*` properties
  * (truststore and keystore as JKS, PKCS12 or PEM, as the Java client takes them)
  * turned into an `SSLContext` for HTTPS, so an operator configures trust once.
  */
object TlsProfile {

  /** None when nothing TLS-specific is configured: the JVM's default trust then applies. */
  def sslContext(props: Map[String, String], registryCa: Option[os.Path]): Option[SSLContext] = {
    val trust = registryCa.map(p => pemTrustStore(os.read(p))).orElse(trustStore(props))
    val keys = keyStore(props)
    if (trust.isEmpty && keys.isEmpty) None
    else {
      val ctx = SSLContext.getInstance("TLS")
      val tms = trust.map { ks =>
        val f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm); f.init(ks); f.getTrustManagers
      }
      val kms = keys.map { case (ks, pass) =>
        val f = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm); f.init(ks, pass); f.getKeyManagers
      }
      ctx.init(kms.orNull, tms.orNull, null)
      Some(ctx)
    }
  }

  private def load(tpe: String, location: os.Path, password: Option[String]): KeyStore = KeyStores.open(tpe, location, password).get

  private def trustStore(props: Map[String, String]): Option[KeyStore] = {
    val tpe = props.getOrElse("ssl.truststore.type", "JKS").toUpperCase
    (tpe, props.get("ssl.truststore.location"), props.get("ssl.truststore.certificates")) match {
      case ("PEM", Some(loc), _) => Some(pemTrustStore(os.read(os.Path(loc, os.pwd))))
      case ("PEM", None, Some(inline)) => Some(pemTrustStore(inline))
      case (t, Some(loc), _) => Some(load(t, os.Path(loc, os.pwd), props.get("ssl.truststore.password")))
      case _ => None
    }
  }

  private def keyStore(props: Map[String, String]): Option[(KeyStore, Array[Char])] = {
    val tpe = props.getOrElse("ssl.keystore.type", "JKS").toUpperCase
    val keyPass = props.get("ssl.key.password").orElse(props.get("ssl.keystore.password")).getOrElse("").toCharArray
    (tpe, props.get("ssl.keystore.location")) match {
      case ("PEM", loc) =>
        val text = loc.map(l => os.read(os.Path(l, os.pwd))).getOrElse(props.getOrElse("ssl.keystore.key", "") +
          props.getOrElse("ssl.keystore.certificate.chain", ""))
        if (text.isEmpty) None else Some((pemKeyStore(text, keyPass), keyPass))
      case (t, Some(loc)) => Some((load(t, os.Path(loc, os.pwd), props.get("ssl.keystore.password")), keyPass))
      case _ => None
    }
  }

  private[config] def certificates(pem: String): List[X509Certificate] =
    CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem.getBytes("US-ASCII")))
      .asScala.toList.collect { case c: X509Certificate => c }

  def pemTrustStore(pem: String): KeyStore = {
    val ks = KeyStore.getInstance(KeyStore.getDefaultType)
    ks.load(null, null)
    certificates(pem).zipWithIndex.foreach { case (c, i) => ks.setCertificateEntry(s"ca-$i", c) }
    ks
  }

  /** An unencrypted PKCS#8 key and its certificate chain, as Kafka's PEM keystore holds them. */
  private def pemKeyStore(pem: String, pass: Array[Char]): KeyStore = {
    val body = "-----BEGIN PRIVATE KEY-----(.*?)-----END PRIVATE KEY-----".r.findFirstMatchIn(pem.replace("\n", ""))
      .getOrElse(throw new IllegalArgumentException("PEM keystore: no unencrypted PRIVATE KEY block"))
      .group(1)
    val spec = new PKCS8EncodedKeySpec(Base64.getDecoder.decode(body))
    val key: PrivateKey = List("RSA", "EC").iterator.map(a => scala.util.Try(KeyFactory.getInstance(a).generatePrivate(spec))).collectFirst {
      case scala.util.Success(k) => k
    }
      .getOrElse(throw new IllegalArgumentException("PEM keystore: unsupported key type"))
    val ks = KeyStore.getInstance(KeyStore.getDefaultType)
    ks.load(null, null)
    ks.setKeyEntry("client", key, pass, certificates(pem).toArray)
    ks
  }
}

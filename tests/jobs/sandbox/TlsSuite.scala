package bankops.jobs.sandbox

import java.security.{KeyFactory, KeyStore}
import java.security.cert.X509Certificate
import java.security.spec.PKCS8EncodedKeySpec
import java.util.Base64
import javax.net.ssl.{KeyManagerFactory, SSLContext, SSLServerSocket, SSLSocket, TrustManagerFactory}

import scala.jdk.CollectionConverters._

import bankops.support.IOSuite

/** The sandbox's TLS material as the brokers, the registry and every client take it, checked without a sandbox: the
  * files, their modes, the certificates' uses, and a mutual TLS handshake between the brokers' store and a client's.
  */
class TlsSuite extends munit.FunSuite {
  private val password = "not-a-real-secret"

  private def load(file: os.Path): KeyStore = {
    val ks = KeyStore.getInstance("PKCS12")
    val in = os.read.inputStream(file)
    try ks.load(in, password.toCharArray)
    finally in.close()
    ks
  }

  private def made(): TlsFiles = {
    val files = TlsFiles(os.temp.dir() / "tls")
    Tls.ensure(files, password).unsafeRunSync()(IOSuite.runtime)
    files
  }

  private def chain(file: os.Path, alias: String): List[X509Certificate] =
    load(file).getCertificateChain(alias).toList.map(_.asInstanceOf[X509Certificate])

  test("every file, complete, the private keys the owner's alone, nothing left beside the directory") {
    val f = made()
    assert(f.complete)
    val secret = List(f.caP12, f.broker) ++ Identities.all.flatMap(n => List(f.identity(n).keystore, f.identity(n).keyPem))
    secret.foreach(p => assertEquals(os.perms(p).toString, "rw-------", p.toString))
    assertEquals(os.list(f.dir / os.up).map(_.last), Seq("tls"))
  }

  test("the CA signs certificates only; the broker's serves localhost and 127.0.0.1; each identity's is a client's, CN=<name>") {
    val f = made()
    val ca = load(f.truststore).getCertificate("ca").asInstanceOf[X509Certificate]
    assertEquals(ca.getBasicConstraints, Int.MaxValue)
    assertEquals(ca.getSubjectX500Principal.getName, "CN=bankops sandbox CA")
    val broker = chain(f.broker, "broker")
    assertEquals(broker.size, 2)
    broker.head.verify(ca.getPublicKey)
    assertEquals(broker.head.getSubjectX500Principal.getName, s"CN=${Tls.BrokerName}")
    assertEquals(broker.head.getBasicConstraints, -1)
    assertEquals(broker.head.getExtendedKeyUsage.asScala.toSet, Set("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"))
    assertEquals(broker.head.getSubjectAlternativeNames.asScala.map(_.asScala.toList).toSet,
      Set(List[Any](2, "localhost"), List[Any](7, "127.0.0.1")))
    Identities.all.foreach { name =>
      val c = chain(f.identity(name).keystore, name)
      c.head.verify(ca.getPublicKey)
      assertEquals(c.head.getSubjectX500Principal.getName, s"CN=$name")
      assertEquals(c.head.getExtendedKeyUsage.asScala.toList, List("1.3.6.1.5.5.7.3.2"))
      // The PEM copies kcat and confluent-kafka read: the same chain, and the key of its certificate.
      val pems = os.read(f.identity(name).certPem).split("-----END CERTIFICATE-----").toList.filter(_.contains("BEGIN"))
      assertEquals(pems.size, 2)
      val der = Base64.getMimeDecoder.decode(os.read(f.identity(name).keyPem).linesIterator.filterNot(_.startsWith("-----")).mkString)
      val key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der))
      val signature = java.security.Signature.getInstance("SHA256withRSA")
      signature.initSign(key)
      signature.update(name.getBytes)
      val signed = signature.sign()
      signature.initVerify(c.head.getPublicKey)
      signature.update(name.getBytes)
      assert(signature.verify(signed), s"$name's key PEM does not match its certificate")
    }
  }

  test("a mutual TLS handshake: the broker's store serves, a client's store is taken, the server sees CN=<name>") {
    val f = made()
    def context(keystore: os.Path): SSLContext = {
      val keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm)
      keys.init(load(keystore), password.toCharArray)
      val trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm)
      trust.init(load(f.truststore))
      val c = SSLContext.getInstance("TLS")
      c.init(keys.getKeyManagers, trust.getTrustManagers, null)
      c
    }
    val server = context(f.broker).getServerSocketFactory.createServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress)
      .asInstanceOf[SSLServerSocket]
    server.setNeedClientAuth(true)
    val peer = new java.util.concurrent.CompletableFuture[String]()
    val accepting = new Thread(() =>
      try {
        val s = server.accept().asInstanceOf[SSLSocket]
        try { s.startHandshake(); peer.complete(s.getSession.getPeerPrincipal.getName) }
        finally s.close()
      } catch { case e: Throwable => peer.completeExceptionally(e) })
    accepting.start()
    try {
      val client = context(f.identity(Identities.Reader).keystore).getSocketFactory.createSocket("localhost", server.getLocalPort)
        .asInstanceOf[SSLSocket]
      val params = client.getSSLParameters
      params.setEndpointIdentificationAlgorithm("HTTPS")
      client.setSSLParameters(params)
      try client.startHandshake()
      finally client.close()
      assertEquals(peer.get(30, java.util.concurrent.TimeUnit.SECONDS), s"CN=${Identities.Reader}")
    } finally server.close()
  }

  test("every store opens in 1,000 rounds of its password, certificates in the clear; a key only with the password") {
    import org.bouncycastle.asn1.pkcs.{PBES2Parameters, PBKDF2Params, PKCSObjectIdentifiers}
    import org.bouncycastle.pkcs.{PKCS12PfxPdu, PKCS12SafeBagFactory, PKCS8EncryptedPrivateKeyInfo}
    val f = made()
    val keyStores = List(f.caP12, f.broker) ++ Identities.all.map(f.identity(_).keystore)
    (f.truststore :: keyStores).foreach { file =>
      val pfx = new PKCS12PfxPdu(os.read.bytes(file))
      assertEquals(pfx.toASN1Structure.getMacData.getIterationCount.intValue, 1000, file.toString)
      load(file) // the JDK checks the MAC with the password as it opens the store
      // Certificates are public: in plain data, no encrypted content. Keys: PBES2, PBKDF2 of 1,000 rounds.
      assertEquals(pfx.getContentInfos.map(_.getContentType).distinct.toList, List(PKCSObjectIdentifiers.data), file.toString)
      val keyRounds = pfx.getContentInfos.toList.flatMap(c => new PKCS12SafeBagFactory(c).getSafeBags.toList)
        .filter(_.getType == PKCSObjectIdentifiers.pkcs8ShroudedKeyBag).map { bag =>
          val alg = bag.getBagValue.asInstanceOf[PKCS8EncryptedPrivateKeyInfo].getEncryptionAlgorithm
          assertEquals(alg.getAlgorithm, PKCSObjectIdentifiers.id_PBES2, file.toString)
          PBKDF2Params.getInstance(PBES2Parameters.getInstance(alg.getParameters).getKeyDerivationFunc.getParameters).getIterationCount.intValue
        }
      assertEquals(keyRounds, if (keyStores.contains(file)) List(1000) else Nil, file.toString)
    }
    val reader = load(f.identity(Identities.Reader).keystore)
    intercept[java.security.UnrecoverableKeyException](reader.getKey(Identities.Reader, "a-wrong-password".toCharArray))
    assert(reader.getKey(Identities.Reader, password.toCharArray) != null)
  }

  test("complete material is kept as it is; an incomplete directory is made again whole") {
    val f = made()
    val before = os.read.bytes(f.caP12).toList
    Tls.ensure(f, password).unsafeRunSync()(IOSuite.runtime)
    assertEquals(os.read.bytes(f.caP12).toList, before)
    os.remove(f.identity(Identities.Loader).keyPem)
    Tls.ensure(f, password).unsafeRunSync()(IOSuite.runtime)
    assert(f.complete)
    assertNotEquals(os.read.bytes(f.caP12).toList, before)
  }
}

package bankops.jobs.sandbox

import java.math.BigInteger
import java.security.{KeyPair, KeyPairGenerator, PrivateKey, SecureRandom}
import java.security.cert.X509Certificate
import java.time.Instant
import java.time.temporal.ChronoUnit
import java.util.Date

import org.bouncycastle.asn1.x500.X500Name
import org.bouncycastle.asn1.x509.{BasicConstraints, ExtendedKeyUsage, Extension, GeneralName, GeneralNames, KeyPurposeId, KeyUsage}
import org.bouncycastle.cert.X509v3CertificateBuilder
import org.bouncycastle.cert.jcajce.{JcaX509CertificateConverter, JcaX509ExtensionUtils, JcaX509v3CertificateBuilder}
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder

/** A key and its certificate chain, the signer's certificate last. */
private[sandbox] final case class Issued(key: PrivateKey, chain: List[X509Certificate]) {
  def certificate: X509Certificate = chain.head
}

/** X.509 certificates for the sandbox, made in this JVM: keytool took a JVM per step, 28 of them and ~13 s of a first
  * `sandbox up`. Keys and signatures come from the JDK's providers; Bouncy Castle only assembles the certificates.
  */
private[sandbox] object Certificates {
  private val random = new SecureRandom()

  private def keyPair(): KeyPair = {
    val g = KeyPairGenerator.getInstance("RSA")
    g.initialize(2048, random)
    g.generateKeyPair()
  }

  /** A positive serial of 62 random bits and a final 1: unique enough for one CA's handful of certificates, never zero. */
  private def serial(): BigInteger = BigInteger.valueOf((random.nextLong() >>> 1) | 1L)

  private def sign(builder: X509v3CertificateBuilder, by: PrivateKey): X509Certificate =
    new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(by)))

  /** A self-signed CA valid for `days`: it signs certificates and nothing else. */
  /** Valid from an hour before `now`: a clock stepped back a little does not make a fresh sandbox's TLS fail. */
  private def validFrom(now: Instant): Date = Date.from(now.minus(1, ChronoUnit.HOURS))

  def authority(cn: String, days: Int, now: Instant = Instant.now()): Issued = {
    val pair = keyPair()
    val name = new X500Name(s"CN=$cn")
    val builder = new JcaX509v3CertificateBuilder(name, serial(), validFrom(now), Date.from(now.plus(days.toLong, ChronoUnit.DAYS)), name,
      pair.getPublic)
      .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
      .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
      .addExtension(Extension.subjectKeyIdentifier, false, new JcaX509ExtensionUtils().createSubjectKeyIdentifier(pair.getPublic))
    Issued(pair.getPrivate, List(sign(builder, pair.getPrivate)))
  }

  /** A TLS certificate `CN=cn` signed by `ca`, for the given uses (`serverAuth` needs `hosts`: names and addresses). */
  def leaf(ca: Issued, cn: String, days: Int, server: Boolean, hosts: List[String] = Nil, now: Instant = Instant.now()): Issued = {
    val pair = keyPair()
    val utils = new JcaX509ExtensionUtils()
    val uses = (if (server) List(KeyPurposeId.id_kp_serverAuth) else Nil) :+ KeyPurposeId.id_kp_clientAuth
    val builder = new JcaX509v3CertificateBuilder(ca.certificate, serial(), validFrom(now), Date.from(now.plus(days.toLong, ChronoUnit.DAYS)),
      new X500Name(s"CN=$cn"), pair.getPublic)
      .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
      .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
      .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(uses.toArray))
      .addExtension(Extension.subjectKeyIdentifier, false, utils.createSubjectKeyIdentifier(pair.getPublic))
      .addExtension(Extension.authorityKeyIdentifier, false, utils.createAuthorityKeyIdentifier(ca.certificate))
    val withHosts =
      if (hosts.isEmpty) builder
      else builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(hosts.map(hostName).toArray))
    Issued(pair.getPrivate, sign(withHosts, ca.key) :: ca.chain)
  }

  private def hostName(host: String): GeneralName =
    if (host.nonEmpty && host.forall(c => c.isDigit || c == '.')) new GeneralName(GeneralName.iPAddress, host)
    else new GeneralName(GeneralName.dNSName, host)
}

package bankops.services.config

import org.apache.kafka.common.config.types.Password
import org.apache.kafka.common.security.JaasContext

import java.security.cert.X509Certificate
import javax.naming.ldap.LdapName
import scala.jdk.CollectionConverters._
import scala.util.Try

/** Who the Kafka client properties make us, as a broker's authorizer sees it: the subject of the keystore's certificate
  * over SSL, the SASL user over SASL_*, else nobody. Read from the properties alone; no secret is ever part of it.
  */
sealed abstract class ClientIdentity(val describe: String) {

  /** The principals a broker may map this identity to (`User:...`): the broker's mapping rules decide which. */
  def principals: List[String]
}

object ClientIdentity {

  /** A client certificate: `subject` as RFC 2253 writes it (`CN=reader,O=bank`). */
  final case class Certificate(subject: String) extends ClientIdentity(subject) {
    def commonName: Option[String] =
      Try(new LdapName(subject).getRdns.asScala.reverse.find(_.getType.equalsIgnoreCase("CN")).map(_.getValue.toString)).toOption.flatten

    /** The whole subject (Kafka's DEFAULT rule) and its CN alone (the common `RULE:^CN=([^,]+)$/$1/`). */
    def principals: List[String] = (s"User:$subject" :: commonName.map(cn => s"User:$cn").toList).distinct
  }

  final case class SaslUser(mechanism: String, user: String) extends ClientIdentity(
        if (mechanism.toUpperCase.startsWith("SCRAM-")) s"SCRAM user $user" else s"$mechanism user $user") {
    def principals: List[String] = List(s"User:$user")
  }

  /** The properties name an identity bankops cannot read (a keystore that does not open, a JAAS config without a user). */
  final case class Unreadable(what: String) extends ClientIdentity(what) {
    def principals: List[String] = Nil
  }

  case object Anonymous extends ClientIdentity("no client identity (anonymous)") {
    def principals: List[String] = List("User:ANONYMOUS")
  }

  def of(props: Map[String, String]): ClientIdentity = {
    val protocol = props.getOrElse("security.protocol", "PLAINTEXT").trim.toUpperCase
    if (protocol.startsWith("SASL_")) sasl(props)
    else if (protocol == "SSL") certificate(props).getOrElse(Anonymous)
    else Anonymous
  }

  /** The identity and where the properties came from: `CN=reader (from BANKOPS_COMMAND_CONFIG)`. */
  def describe(kafka: KafkaSettings): String =
    s"${of(kafka.properties).describe}${kafka.commandConfig.fold("")(c => s" (from ${origin(c.source)})")}"

  /** Where a command-config came from, as a person would look for it. */
  def origin(source: Source): String = source match {
    case Source.Env(name) => name
    case Source.Flag(name) => s"--$name"
    case Source.Context(name) => s"context $name"
    case Source.File(path) => s"file $path"
    case Source.Sandbox => "the sandbox"
    case Source.Default => "the defaults"
  }

  private def sasl(props: Map[String, String]): ClientIdentity = {
    val mechanism = props.getOrElse("sasl.mechanism", "GSSAPI").trim
    val option = if (mechanism.equalsIgnoreCase("GSSAPI")) "principal" else "username"
    // Kafka's own JAAS parser, so quoting and escapes read as the client reads them; the text itself is never shown.
    val user = props.get("sasl.jaas.config").flatMap { text =>
      Try(JaasContext.loadClientContext(Map("sasl.jaas.config" -> new Password(text)).asJava)).toOption
        .flatMap(c => Option(JaasContext.configEntryOption(c.configurationEntries(), option, null)))
    }
    user.fold[ClientIdentity](Unreadable(s"a $mechanism client whose sasl.jaas.config names no $option"))(SaslUser(mechanism, _))
  }

  private def certificate(props: Map[String, String]): Option[ClientIdentity] = {
    val tpe = props.getOrElse("ssl.keystore.type", "JKS").trim.toUpperCase
    val location = props.get("ssl.keystore.location").map(l => os.Path(l, os.pwd))
    val where = location.fold("the PEM keystore in ssl.keystore.certificate.chain")(l => s"the keystore $l")
    val chain: Option[Either[String, X509Certificate]] = (tpe, location) match {
      case ("PEM", loc) =>
        loc.map(l => Try(os.read(l)).toOption.getOrElse("")).orElse(props.get("ssl.keystore.certificate.chain")).map { text =>
          Try(TlsProfile.certificates(text)).toOption.flatMap(_.headOption).toRight("holds no certificate")
        }
      case (t, Some(loc)) => Some(fromStore(t, loc, props.get("ssl.keystore.password")))
      case _ => None
    }
    chain.map {
      case Right(cert) => Certificate(cert.getSubjectX500Principal.getName)
      case Left(why) => Unreadable(s"the client certificate of $where ($why)")
    }
  }

  /** The certificate of the store's first key entry, as the key manager would present it. */
  private def fromStore(tpe: String, path: os.Path, password: Option[String]): Either[String, X509Certificate] =
    KeyStores.open(tpe, path, password).toEither.left.map(_ => "it does not open with ssl.keystore.password").flatMap { ks =>
      ks.aliases().asScala.toList.sorted.filter(ks.isKeyEntry).flatMap(a => Option(ks.getCertificate(a))).collectFirst {
        case c: X509Certificate => c
      }.toRight("it holds no key with a certificate")
    }
}

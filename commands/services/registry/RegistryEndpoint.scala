package bankops.services.registry

import java.net.{URI, URISyntaxException, URLDecoder}
import java.nio.charset.StandardCharsets.UTF_8
import scala.util.Try

import bankops.services.config.{RegistrySettings, Secrets, TlsProfile}

/** The registry as bankops reaches it, checked before the first request: a URL of the right shape, the credentials
  * (from the URL's `user:password@` or the user-info setting, never both), and the PEM CA file when one is given.
  * Every problem is one line naming where the value came from.
  */
final case class RegistryEndpoint(url: String, userInfo: Option[String])

object RegistryEndpoint {

  def from(settings: RegistrySettings): Either[String, RegistryEndpoint] = {
    val where = settings.url.source.describe
    val shown = Secrets.maskUrl(settings.url.value)
    def bad(why: String) = s"$where: '$shown' is not a registry URL ($why; expected http[s]://HOST[:PORT][/PATH])"
    for {
      uri <- (try Right(new URI(settings.url.value.trim))
      catch { case e: URISyntaxException => Left(bad(e.getReason)) })
      _ <- Option(uri.getScheme).map(_.toLowerCase).filter(s => s == "http" || s == "https").toRight(bad("the scheme must be http or https"))
      _ <- Option(uri.getHost).filter(_.nonEmpty).toRight(bad("no host"))
      _ <- Either.cond(uri.getQuery == null && uri.getFragment == null, (), bad("a query or fragment has no place in it"))
      inUrl = Option(uri.getRawUserInfo).map(u => URLDecoder.decode(u, UTF_8))
      _ <- (inUrl, settings.userInfo) match {
        case (Some(_), Some(given)) => Left(s"$where: the URL carries credentials and ${given.source.describe} gives them too; give them once")
        case _ => Right(())
      }
      bare = new URI(uri.getScheme, null, uri.getHost, uri.getPort, uri.getRawPath, null, null).toString
      _ <- settings.caFile.fold[Either[String, Unit]](Right(()))(ca => caFile(ca.value, ca.source.describe))
    } yield RegistryEndpoint(bare.stripSuffix("/"), inUrl.orElse(settings.userInfo.map(_.value)))
  }

  /** A PEM file with at least one certificate. */
  def caFile(path: os.Path, where: String): Either[String, Unit] =
    if (os.isDir(path)) Left(s"$where: $path is a directory, not a PEM CA certificate")
    else if (!os.isFile(path)) Left(s"$where: $path does not exist")
    else Try(TlsProfile.pemTrustStore(os.read(path))).toOption.filter(_.size > 0).toRight(s"$where: $path holds no PEM certificate").map(_ => ())

  /** The TLS settings for the registry: its own `schema.registry.ssl.*` keys when the command-config has any (as
    * Confluent's clients take them), otherwise the Kafka `ssl.*` profile, so one profile serves both by default.
    */
  def tlsProperties(props: Map[String, String]): Map[String, String] = {
    val own = props.collect { case (k, v) if k.startsWith("schema.registry.ssl.") => k.stripPrefix("schema.registry.") -> v }
    if (own.nonEmpty) own else props
  }
}

package bankops.services.config

import io.circe.generic.semiauto._
import io.circe.{Decoder, Encoder}

/** A named set of connection settings (`bankops context add`): what a job takes from the chosen context when no flag
  * or variable sets it. Secrets only by reference ([[SecretRef]]).
  */
final case class ConnectionContext(
    bootstrapServer: Option[String] = None,
    commandConfig: Option[os.Path] = None,
    registryUrl: Option[String] = None,
    registryUserInfo: Option[SecretRef] = None,
    registryCa: Option[os.Path] = None,
    dbUrl: Option[String] = None,
    dbUser: Option[String] = None,
    dbPassword: Option[SecretRef] = None,
    sandboxDir: Option[os.Path] = None
) {

  /** What a context may not hold: a password written into one of its URLs (give it by reference instead). */
  def check: Either[String, ConnectionContext] = {
    val registryCredentials = registryUrl.exists(u => u.split("://", 2).lift(1).exists(_.takeWhile(_ != '/').contains('@')))
    val dbPasswordInUrl = dbUrl.exists(_.toLowerCase.matches(".*[?&;][a-z]*password=.*")) // sslpassword= too
    if (registryCredentials) Left("--registry-url holds credentials: a context keeps no secret in clear (use --registry-user-info-env or -file)")
    else if (dbPasswordInUrl) Left("--db-url holds a password: a context keeps no secret in clear (use --db-password-env or --db-password-file)")
    else Right(this)
  }

  /** The files it names that are missing now, each with its flag. */
  def missingFiles: List[String] =
    (commandConfig.map("--command-config" -> _) ++ registryCa.map("--registry-ca" -> _) ++
      registryUserInfo.collect { case SecretRef.File(p) => "--registry-user-info-file" -> p } ++
      dbPassword.collect { case SecretRef.File(p) => "--db-password-file" -> p }).collect {
      case (flag, p) if !os.isFile(p) => s"$flag $p is not a file"
    }.toList
}

object ConnectionContext {
  private[config] implicit val pathEncoder: Encoder[os.Path] = Encoder.encodeString.contramap(_.toString)
  private[config] implicit val pathDecoder: Decoder[os.Path] = Decoder.decodeString.emap(s =>
    scala.util.Try(os.Path(s)).toEither.left.map(_ => s"'$s' is not an absolute path"))

  implicit val encoder: Encoder[ConnectionContext] = deriveEncoder[ConnectionContext].mapJson(_.dropNullValues)
  implicit val decoder: Decoder[ConnectionContext] = deriveDecoder
}

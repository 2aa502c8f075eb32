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

  /** What a context may not hold: a password written into one of its URLs (give it by reference instead), or a control
    * character in any setting (a newline in a URL hid a password from the earlier, textual check).
    */
  def check: Either[String, ConnectionContext] = checkedWith(Setting.all)

  private[config] def checkedWith(table: List[Setting[_]]): Either[String, ConnectionContext] = {
    // Texts before files, as these reports have always been ordered.
    val texts = table.sortBy(_.kind.isFile).map(s => s"--${s.name}" -> s.clearText(this)) :+ ("--sandbox-dir" -> sandboxDir.map(_.toString))
    for {
      _ <- texts.collectFirst {
        case (flag, Some(t)) if UrlSecrets.controlCharacter(t).nonEmpty =>
          s"$flag holds a control character (at character ${UrlSecrets.controlCharacter(t).get + 1}); a context keeps none"
      }.toLeft(())
      _ <- registryUrl.map(UrlSecrets.userInfo).fold[Either[String, Unit]](Right(())) {
        case Left(why) => Left(s"--registry-url $why")
        case Right(true) => Left("--registry-url holds credentials: a context keeps no secret in clear (use --registry-user-info-env or -file)")
        case Right(false) => Right(())
      }
      _ <- dbUrl.map(UrlSecrets.jdbc).filter(_.nonEmpty).map { found =>
        s"--db-url holds a password (${found.mkString(", ")}): a context keeps no secret in clear (use --db-password-env or --db-password-file)"
      }.toLeft(())
    } yield this
  }

  /** The files it names that are missing now, each with its flag. */
  def missingFiles: List[String] = missingFilesWith(Setting.all)

  private[config] def missingFilesWith(table: List[Setting[_]]): List[String] = {
    // Its settings' own files, then the files its secrets are read from.
    val files = table.flatMap(s => s.clearFile(this).map(s"--${s.name}" -> _)) ++
      table.flatMap(s => s.context.reference(this).collect { case SecretRef.File(p) => s"--${s.name}-file" -> p })
    files.collect { case (flag, p) if !os.isFile(p) => s"$flag $p is not a file" }
  }
}

object ConnectionContext {
  private[config] implicit val pathEncoder: Encoder[os.Path] = Encoder.encodeString.contramap(_.toString)
  private[config] implicit val pathDecoder: Decoder[os.Path] = Decoder.decodeString.emap(s =>
    scala.util.Try(os.Path(s)).toEither.left.map(_ => s"'$s' is not an absolute path"))

  implicit val encoder: Encoder[ConnectionContext] = deriveEncoder[ConnectionContext].mapJson(_.dropNullValues)
  implicit val decoder: Decoder[ConnectionContext] = deriveDecoder
}

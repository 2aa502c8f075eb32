package bankops.services.config

import io.circe.{Decoder, Encoder, Json}

/** Where a context finds a secret when it is used: an environment variable or a file. A context stores the reference,
  * never the secret.
  */
sealed abstract class SecretRef(val describe: String)

object SecretRef {
  final case class Env(name: String) extends SecretRef(s"env $name")
  final case class File(path: os.Path) extends SecretRef(s"file $path")

  private val EnvName = "[A-Za-z_][A-Za-z0-9_]*".r

  /** `--X-env NAME` or `--X-file PATH` (at most one); `what` names the secret in the error. */
  def of(what: String, env: Option[String], file: Option[os.Path]): Either[String, Option[SecretRef]] = (env, file) match {
    case (Some(_), Some(_)) => Left(s"give the $what either by variable or by file, not both")
    case (Some(n @ EnvName()), None) => Right(Some(Env(n)))
    // Never repeated: what was given may be the secret itself.
    case (Some(_), None) => Left(s"the value given for the $what is not an environment variable name (give the variable's name, not its value)")
    case (None, f) => Right(f.map(File(_)))
  }

  /** The secret itself, read now: a variable that is not set or a file that cannot be read is a setting to fix. */
  def read(ref: SecretRef, env: Map[String, String]): Either[String, String] = ref match {
    case Env(n) => env.get(n).filter(_.nonEmpty).toRight(s"variable $n is not set")
    case File(p) =>
      bankops.base.TextFile.readPrivate(p, "file").map(_.reverse.dropWhile(c => c == '\n' || c == '\r').reverse)
  }

  implicit val encoder: Encoder[SecretRef] = Encoder.instance {
    case Env(n) => Json.obj("env" -> Json.fromString(n))
    case File(p) => Json.obj("file" -> Json.fromString(p.toString))
  }
  implicit val decoder: Decoder[SecretRef] = Decoder.instance { c =>
    c.get[String]("env").map(Env(_): SecretRef).orElse(c.get[os.Path]("file")(ConnectionContext.pathDecoder).map(File(_): SecretRef))
  }
}

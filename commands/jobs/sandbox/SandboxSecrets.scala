package bankops.jobs.sandbox

import cats.effect.IO
import io.circe.generic.semiauto._
import io.circe.parser.decode
import io.circe.syntax._
import io.circe.{Decoder, Encoder}

import java.security.SecureRandom

/** Generated once per sandbox, kept in a file only its owner can read, never printed. */
final case class SandboxSecrets(tlsPassword: String, dbPassword: String)

object SandboxSecrets {
  private implicit val codec: Encoder[SandboxSecrets] = deriveEncoder
  private implicit val decoder: Decoder[SandboxSecrets] = deriveDecoder

  private def random(n: Int): String = {
    val chars = ('a' to 'z') ++ ('A' to 'Z') ++ ('0' to '9')
    val rnd = new SecureRandom()
    List.fill(n)(chars(rnd.nextInt(chars.size))).mkString
  }

  /** None when no sandbox was ever set up in this directory. */
  def load(layout: SandboxLayout): IO[Option[SandboxSecrets]] = IO.blocking {
    val f = layout.secretsFile
    if (!os.exists(f)) None
    else Some(decode[SandboxSecrets](os.read(f)).fold(e => throw new IllegalStateException(s"$f: ${e.getMessage}"), identity))
  }

  def loadOrCreate(layout: SandboxLayout): IO[SandboxSecrets] = load(layout).map(_.getOrElse {
    val s = SandboxSecrets(random(24), random(24))
    os.makeDir.all(layout.dir)
    os.write.over(layout.secretsFile, s.asJson.spaces2, perms = "rw-------")
    s
  })
}

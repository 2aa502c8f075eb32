package bankops.services.config

import cats.effect.IO
import io.circe.{Decoder, Encoder}
import io.circe.generic.semiauto._
import io.circe.syntax._

/** What a running sandbox offers; see `bankops sandbox env`. */
final case class SandboxConnection(
    bootstrapServers: String,
    commandConfig: os.Path,
    registryUrl: String,
    dbUrl: String,
    dbUser: String,
    dbPassword: String
)

object SandboxConnection {
  private implicit val pathEncoder: Encoder[os.Path] = Encoder.encodeString.contramap(_.toString)
  private implicit val pathDecoder: Decoder[os.Path] = Decoder.decodeString.map(os.Path(_))

  implicit val encoder: Encoder[SandboxConnection] = deriveEncoder
  implicit val decoder: Decoder[SandboxConnection] = deriveDecoder

  val FileName = "connection.json"

  /** The settings `sandbox up` last started with: there once a sandbox has run in the directory. */
  val StateFileName = "state.json"

  /** Where the sandbox in `dir` keeps the pid of one of its services (kafka, registry, postgres, handler). */
  def pidFile(dir: os.Path, service: String): os.Path = dir / service / "pid"

  /** Written by `sandbox up` once every service answered, and left in place while it restarts a service with the same
    * settings (jobs meanwhile reach the same addresses): only its owner may read the password in it.
    */
  def write(dir: os.Path, connection: SandboxConnection): IO[Unit] =
    IO.blocking(bankops.base.AtomicFile.write(dir / FileName, connection.asJson.spaces2))

  /** The running sandbox's connection, written by `sandbox up` once every service answered
    * and removed by `sandbox down`; None when no sandbox runs in `dir`.
    */
  def read(dir: os.Path): IO[Option[SandboxConnection]] = IO.blocking {
    val file = dir / FileName
    if (!os.exists(file)) None
    else bankops.base.JsonInput.decodeQuiet[SandboxConnection](os.read(file)).toOption
  }
}

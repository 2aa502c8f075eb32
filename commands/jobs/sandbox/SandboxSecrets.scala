package bankops.jobs.sandbox

import cats.effect.IO
import io.circe.syntax._
import io.circe.{Decoder, Encoder, Json}

import java.security.SecureRandom

/** Generated once per sandbox, kept in a file only its owner can read, never printed. `scram` holds each identity's
  * SCRAM password (the topology's users take theirs from the variables [[scramVariables]] names).
  */
final case class SandboxSecrets(tlsPassword: String, dbPassword: String, scram: Map[String, String] = Map.empty) {
  def scramPassword(identity: String): String = scram.getOrElse(identity, "")

  /** `BANKOPS_SCRAM_<NAME>_PASSWORD` for each identity: where `schemas/topology.json` says its user's password is. */
  def scramVariables: Map[String, String] = scram.map { case (name, p) => SandboxSecrets.scramVariable(name) -> p }
}

object SandboxSecrets {
  def scramVariable(identity: String): String = s"BANKOPS_SCRAM_${identity.toUpperCase}_PASSWORD"

  private implicit val encoder: Encoder[SandboxSecrets] = s =>
    Json.obj("tlsPassword" -> s.tlsPassword.asJson, "dbPassword" -> s.dbPassword.asJson, "scram" -> s.scram.asJson)
  // A sandbox made before identities had SCRAM users has no `scram`: loadOrCreate adds them.
  private implicit val decoder: Decoder[SandboxSecrets] = c =>
    for {
      tls <- c.get[String]("tlsPassword")
      db <- c.get[String]("dbPassword")
      scram <- c.getOrElse[Map[String, String]]("scram")(Map.empty)
    } yield SandboxSecrets(tls, db, scram)

  private def random(n: Int): String = {
    val chars = ('a' to 'z') ++ ('A' to 'Z') ++ ('0' to '9')
    val rnd = new SecureRandom()
    List.fill(n)(chars(rnd.nextInt(chars.size))).mkString
  }

  /** None when no sandbox was ever set up in this directory. */
  def load(layout: SandboxLayout): IO[Option[SandboxSecrets]] = IO.blocking {
    val f = layout.secretsFile
    if (!os.exists(f)) None
    else Some(bankops.base.JsonInput.decodeQuiet[SandboxSecrets](os.read(f)).fold(e => throw new IllegalStateException(s"$f: $e"), identity))
  }

  def loadOrCreate(layout: SandboxLayout): IO[SandboxSecrets] = load(layout).map { found =>
    val base = found.getOrElse(SandboxSecrets(random(24), random(24)))
    val missing = Identities.all.filterNot(base.scram.contains)
    if (found.isDefined && missing.isEmpty) base
    else {
      val s = base.copy(scram = base.scram ++ missing.map(_ -> random(24)))
      os.makeDir.all(layout.dir)
      os.write.over(layout.secretsFile, s.asJson.spaces2, perms = "rw-------")
      s
    }
  }
}

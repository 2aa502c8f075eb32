package bankops.services.load

import cats.effect.IO
import fs2.Stream

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import scala.util.Try

import bankops.services.kafka.TopicReader.Raw
import bankops.services.records.RecordDecoder

/** Follows the handler's feedback and puts each account it confirms for one of our creations into the pool. Only
  * answers to our own creations are decoded: the rest of the feedback (every other client's, and the answers to our
  * transfers, nineteen in twenty of ours) is passed over by its key, which kept a load of 1,000 commands/s from costing
  * the measuring process most of a core.
  */
object FeedbackLearner {
  private val Confirmed = "nl.openweb.data.AccountCreationConfirmed"

  def apply(records: Stream[IO, Raw], decoder: RecordDecoder, pool: AccountPool): Stream[IO, Nothing] =
    records.chunks.map(_.filter(r => awaited(r, pool))).filter(_.nonEmpty).evalMap(decoder.decodeChunk).flatMap(Stream.chunk).foreach { d =>
      IO {
        if (d.envelope.record.contains(Confirmed)) for {
          v <- d.envelope.value
          id <- d.envelope.key.flatMap(commandId)
          iban <- v.hcursor.get[String]("iban").toOption
          token <- v.hcursor.get[String]("token").toOption
        } pool.learn(id, iban, token)
      }
    }

  private def commandId(key: Array[Byte]): Option[UUID] =
    if (key.length != 36) None else Try(UUID.fromString(new String(key, UTF_8))).toOption

  private def awaited(r: Raw, pool: AccountPool): Boolean = Option(r.key).flatMap(commandId).exists(pool.awaits)
}

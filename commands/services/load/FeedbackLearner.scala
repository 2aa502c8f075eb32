package bankops.services.load

import cats.effect.IO
import fs2.Stream

import java.nio.charset.StandardCharsets.UTF_8
import java.util.UUID
import scala.util.Try

import bankops.services.kafka.RecordDecoder
import bankops.services.kafka.TopicReader.Raw

/** Follows the handler's feedback and puts each account it confirms for one of our creations into the pool. */
object FeedbackLearner {
  private val Confirmed = "nl.openweb.data.AccountCreationConfirmed"

  def apply(records: Stream[IO, Raw], decoder: RecordDecoder, pool: AccountPool): Stream[IO, Nothing] =
    records.chunks.evalMap(decoder.decodeChunk).flatMap(Stream.chunk).foreach { d =>
      IO {
        if (d.envelope.record.contains(Confirmed)) for {
          v <- d.envelope.value
          id <- d.envelope.key.flatMap(k => Try(UUID.fromString(new String(k, UTF_8))).toOption)
          iban <- v.hcursor.get[String]("iban").toOption
          token <- v.hcursor.get[String]("token").toOption
        } pool.learn(id, iban, token)
      }
    }
}

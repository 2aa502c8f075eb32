package bankops.support

import cats.effect.{IO, Resource}
import fs2.Chunk
import org.apache.kafka.clients.producer.ProducerRecord

import java.nio.charset.StandardCharsets.UTF_8
import scala.concurrent.duration._

import bankops.services.avro.WireFormat
import bankops.services.bank.BalanceChanged
import bankops.services.kafka.ChunkProducer
import bankops.services.registry.RegistryClient

/** BalanceChanged events put on a topic through the library: the typed codec, the wire format and the producer every job uses. */
object BalanceEvents {
  def produce(topic: String, events: List[BalanceChanged]): IO[Unit] = producer(topic).use(_(events))

  /** Sends events to `topic`, its schema id looked up and its producer made first: a test that must put an event on the
    * topic within a window spends the window on the send alone.
    */
  def producer(topic: String): Resource[IO, List[BalanceChanged] => IO[Unit]] =
    Resource.eval(SandboxFixture.settings).flatMap { s =>
      Resource.eval(RegistryClient.resource(s).use(_.version(s"$topic-nl.openweb.data.BalanceChanged")).map(_.get.id)).flatMap { id =>
        ChunkProducer.resource(s.kafka, 30.seconds).map { p => events =>
          val records =
            events.map(e => new ProducerRecord(topic, e.iban.getBytes(UTF_8), WireFormat.Writer[BalanceChanged](id).apply(e).toOption.get))
          p.send(Chunk.from(records))((_, _, err) => if (err != null) throw err).flatten
        }
      }
    }
}

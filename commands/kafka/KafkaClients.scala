package bankops.kafka

import cats.effect.{IO, Resource}
import fs2.kafka.{AdminClientSettings, KafkaAdminClient}

import scala.concurrent.duration._

import bankops.config.KafkaSettings

/** The one place Kafka clients are configured: every admin, consumer and producer
  * bankops makes takes its properties (bootstrap servers, SSL, mTLS) from here.
  */
object KafkaClients {

  def adminSettings(kafka: KafkaSettings, timeout: FiniteDuration): AdminClientSettings =
    AdminClientSettings(kafka.bootstrapServers.value)
      .withProperties(kafka.clientProperties)
      .withRequestTimeout(timeout)
      .withProperty("default.api.timeout.ms", timeout.toMillis.toString)
      // Bounded reconnect backoff: an unreachable broker must fail fast, not hang.
      .withProperty("reconnect.backoff.max.ms", "1000")
      .withCloseTimeout(5.seconds)

  def admin(kafka: KafkaSettings, timeout: FiniteDuration = 30.seconds): Resource[IO, KafkaAdminClient[IO]] =
    KafkaAdminClient.resource[IO](adminSettings(kafka, timeout))
}

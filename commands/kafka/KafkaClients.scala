package bankops.kafka

import cats.effect.{IO, Resource}
import fs2.kafka.{AdminClientSettings, KafkaAdminClient}
import org.apache.kafka.clients.admin.Admin
import org.apache.kafka.common.KafkaFuture

import scala.jdk.CollectionConverters._

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

  /** The Java admin client, for what fs2-kafka's does not offer: per-topic results and validate-only requests. */
  def javaAdmin(kafka: KafkaSettings, timeout: FiniteDuration = 30.seconds): Resource[IO, Admin] =
    Resource.make(IO.blocking(Admin.create(adminSettings(kafka, timeout).properties.map { case (k, v) => k -> (v: AnyRef) }.asJava)))(a =>
      IO.blocking(a.close(java.time.Duration.ofSeconds(5))))

  /** A Java client future as an effect; cancelling the effect cancels the future. */
  def await[A](future: => KafkaFuture[A]): IO[A] =
    IO.fromCompletableFuture(IO(future.toCompletionStage.toCompletableFuture))
}

package bankops.kafka

import cats.effect.{IO, Resource}
import fs2.kafka.{AdminClientSettings, AutoOffsetReset, ConsumerSettings, Deserializer, KafkaAdminClient, KafkaConsumer}
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

  /** A read-only consumer of raw bytes: no group, nothing committed, no topic ever auto-created. */
  def consumerSettings(kafka: KafkaSettings, timeout: FiniteDuration): ConsumerSettings[IO, Array[Byte], Array[Byte]] =
    ConsumerSettings(Deserializer.identity[IO], Deserializer.identity[IO])
      .withProperties(kafka.clientProperties)
      .withBootstrapServers(kafka.bootstrapServers.value)
      .withAutoOffsetReset(AutoOffsetReset.None)
      .withEnableAutoCommit(false)
      .withAllowAutoCreateTopics(false)
      .withRequestTimeout(timeout)
      .withDefaultApiTimeout(timeout)
      .withProperty("reconnect.backoff.max.ms", "1000")
      // Larger fetches: reading whole topics is what these consumers do.
      .withMaxPollRecords(5000)
      .withProperty("fetch.min.bytes", "65536")
      .withProperty("fetch.max.wait.ms", "100")
      .withProperty("max.partition.fetch.bytes", "4194304")
      .withCloseTimeout(5.seconds)

  def consumer(kafka: KafkaSettings, timeout: FiniteDuration): Resource[IO, KafkaConsumer[IO, Array[Byte], Array[Byte]]] =
    KafkaConsumer.resource(consumerSettings(kafka, timeout))

  /** A client timeout becomes exit 3 naming the brokers and the time waited. */
  def unreachable(kafka: KafkaSettings, timeout: FiniteDuration): PartialFunction[Throwable, Throwable] = {
    case e: org.apache.kafka.common.errors.TimeoutException =>
      bankops.cli.Failure.Unavailable(s"Kafka at ${kafka.bootstrapServers.value} did not answer within ${timeout.toSeconds} s (${e.getMessage})", e)
  }
}

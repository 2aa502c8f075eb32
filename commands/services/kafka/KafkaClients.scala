package bankops.services.kafka

import cats.effect.{IO, Resource}
import cats.syntax.all._
import fs2.kafka.{
  Acks, AdminClientSettings, AutoOffsetReset, ConsumerSettings, Deserializer, IsolationLevel, KafkaAdminClient, ProducerSettings, Serializer
}
import org.apache.kafka.clients.admin.Admin
import org.apache.kafka.common.KafkaFuture

import scala.jdk.CollectionConverters._
import scala.util.chaining._

import scala.concurrent.duration._

import bankops.base.Failures
import bankops.services.config.{ClientIdentity, KafkaSettings}

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
    Resource.make(IO.blocking(Admin.create(javaProperties(adminSettings(kafka, timeout).properties))))(a =>
      IO.blocking(a.close(java.time.Duration.ofSeconds(5))))

  /** A Java admin session bounded by `timeout`: an unreachable broker is exit 3 naming it, never a hang. */
  def withAdmin[A](kafka: KafkaSettings, timeout: FiniteDuration)(f: Admin => IO[A]): IO[A] =
    javaAdmin(kafka, timeout).use(f).adaptError(unreachable(kafka, timeout))

  /** A Java client future as an effect; cancelling the effect cancels the future. */
  def await[A](future: => KafkaFuture[A]): IO[A] =
    IO.fromCompletableFuture(IO(future.toCompletionStage.toCompletableFuture))

  /** A read-only consumer of raw bytes: no group, nothing committed, no topic ever auto-created. The command-config
    * file's fetch sizes (max.partition.fetch.bytes, fetch.max.bytes, max.poll.records) override the defaults for
    * throughput, as its producer keys do [[producerSettings]]'s, so a reader's memory can be bounded; what a read means
    * (read_committed, no commits, no reset, no topic created) and how long a fetch waits are not the file's to change.
    */
  def consumerSettings(kafka: KafkaSettings, timeout: FiniteDuration): ConsumerSettings[IO, Array[Byte], Array[Byte]] =
    ConsumerSettings(Deserializer.identity[IO], Deserializer.identity[IO])
      // Polled back to back by TopicReader. 2,000 records a poll, not 10,000: each poll becomes chunks that are decoded
      // two at a time, and five times fewer records in flight cut one inspect's collector pauses from 1.4 s to 0.4-0.5
      // (-Xlog:gc, 1,000,000 records) and its time by ~10% (docs/performance.md).
      .withMaxPollRecords(2000)
      .withProperty("max.partition.fetch.bytes", "4194304")
      .withProperties(kafka.clientProperties)
      // A fetch waits at most 100 ms for 64 KiB: a consumer application's fetch.min.bytes of megabytes in a shared
      // command-config would hold every fetch of a quiet topic's tail for its fetch.max.wait.ms.
      .withProperty("fetch.min.bytes", "65536")
      .withProperty("fetch.max.wait.ms", "100")
      .withProperty("reconnect.backoff.max.ms", "1000")
      .withBootstrapServers(kafka.bootstrapServers.value)
      .withAutoOffsetReset(AutoOffsetReset.None)
      .withEnableAutoCommit(false)
      // Records of aborted transactions (a handler that died mid-batch) are never shown, and open ones wait.
      .withIsolationLevel(IsolationLevel.ReadCommitted)
      .withAllowAutoCreateTopics(false)
      .withRequestTimeout(timeout)
      .withDefaultApiTimeout(timeout)
      .withPollInterval(1.millis)
      .withCloseTimeout(5.seconds)

  /** The Java consumer with the same settings, for poll loops ([[TopicReader]]); `few`: small fetches when
    * only a few records are wanted, so the first arrive at once. Those fetches also wait at most 10 ms at the broker:
    * a read_committed fetch is not woken when a transaction commits, so it sat out its full wait (a latency probe's
    * feedback showed a median of 47 ms where PostgreSQL showed the same commit in 7).
    */
  def javaConsumer(kafka: KafkaSettings, timeout: FiniteDuration, few: Option[Int] = None, uncommitted: Boolean = false)
      : Resource[IO, org.apache.kafka.clients.consumer.KafkaConsumer[Array[Byte], Array[Byte]]] = {
    val committed = consumerSettings(kafka, timeout)
    val base = if (uncommitted) committed.withIsolationLevel(IsolationLevel.ReadUncommitted) else committed
    val settings = few.fold(base)(n =>
      base.withMaxPollRecords(n max 1).withProperty("fetch.min.bytes", "1").withProperty("max.partition.fetch.bytes", "65536")
        .withProperty("fetch.max.wait.ms", "10"))
    val props = javaProperties(settings.properties)
    val bytes = new org.apache.kafka.common.serialization.ByteArrayDeserializer
    Resource.make(IO.blocking(new org.apache.kafka.clients.consumer.KafkaConsumer[Array[Byte], Array[Byte]](props, bytes, bytes)))(c =>
      IO.blocking(c.close(java.time.Duration.ofSeconds(5))))
  }

  /** A member of consumer group `group` (named `instance`, if given) that commits only through a producer's transactions: it starts at the
    * earliest offset when the group has none, and fetches records as soon as any arrive (latency over batching).
    */
  def groupConsumer(kafka: KafkaSettings, group: String, instance: Option[String], timeout: FiniteDuration, maxPollRecords: Int)
      : Resource[IO, org.apache.kafka.clients.consumer.KafkaConsumer[Array[Byte], Array[Byte]]] = {
    // fetch.min.bytes=1: a fetch returns as soon as a record arrives (the commands are written outside transactions, so
    // their arrival wakes it). The wait bounds only an idle fetch: at 50 ms an idle handler cost the three brokers 7 CPU-s
    // a minute and itself 2.4; at 500 ms 0.7 and 0.9, the probes' feedback the same (docs/performance.md).
    val base = consumerSettings(kafka, timeout).withGroupId(group).withAutoOffsetReset(AutoOffsetReset.Earliest)
      .withMaxPollRecords(maxPollRecords).withProperty("fetch.min.bytes", "1").withProperty("fetch.max.wait.ms", "500")
      // A member that died is noticed in 10 s rather than 45.
      .withProperty("session.timeout.ms", "10000")
      // A service with a small heap: a fetch holds at most 8 MiB (Kafka's default allows 50 MiB).
      .withProperty("fetch.max.bytes", (8 * 1024 * 1024).toString).withProperty("max.partition.fetch.bytes", (1024 * 1024).toString)
    // Static membership: a member restarted under the same name takes its partitions back at once, no rebalance.
    val settings = instance.fold(base)(base.withGroupInstanceId)
      .withProperties(kafka.clientProperties.filter { case (k, _) => k.startsWith("group.") || k.startsWith("max.poll") })
    val bytes = new org.apache.kafka.common.serialization.ByteArrayDeserializer
    Resource.make(IO.blocking(new org.apache.kafka.clients.consumer.KafkaConsumer[Array[Byte], Array[Byte]](javaProperties(settings.properties),
          bytes, bytes)))(c =>
      // Offsets go through a producer's transactions, so closing commits nothing: it sends LeaveGroup and then waits
      // for requests in flight, a JoinGroup among them while a rebalance is under way. That wait held SIGTERM for seconds.
      IO.blocking(c.close(java.time.Duration.ofSeconds(1))))
  }

  /** A transactional producer (`transactional.id` fences an earlier process with the same id and ends its open
    * transaction), lingering 1 ms: a handler's batches are committed as soon as they are sent. Made and closed by
    * the caller, which replaces it after a failed commit.
    */
  def transactionalProducer(kafka: KafkaSettings, transactionalId: String, timeout: FiniteDuration)
      : org.apache.kafka.clients.producer.KafkaProducer[Array[Byte], Array[Byte]] = {
    val settings = producerSettings(kafka, timeout).withLinger(1.millis).withBatchSize(64 * 1024)
      // Each batch is committed before the next: what waits for sending is one batch's answers, never 32 MiB.
      .withProperty("buffer.memory", (8L * 1024 * 1024).toString)
      .withProperty("transactional.id", transactionalId)
      // A handler killed mid-transaction holds back read_committed readers until this passes (unless restarted with its id).
      .withProperty("transaction.timeout.ms", "10000")
      // A transaction begun right after a commit finds the coordinator still writing the previous one's markers and is
      // told to retry (CONCURRENT_TRANSACTIONS); the default 100 ms backoff then stalled one batch in ten by 100 ms.
      .withProperty("retry.backoff.ms", "5")
      .withProperties(kafka.clientProperties)
      .pipe(exact)
    val bytes = new org.apache.kafka.common.serialization.ByteArraySerializer
    new org.apache.kafka.clients.producer.KafkaProducer[Array[Byte], Array[Byte]](javaProperties(settings.properties), bytes, bytes)
  }

  /** A client timeout, a failed TLS handshake or refused credentials become exit 3 naming the brokers: the Java
    * client's own messages name neither the address nor what to check. Found anywhere in the cause chain (the clients
    * wrap them), unless bankops already said what failed.
    */
  def unreachable(kafka: KafkaSettings, timeout: FiniteDuration): PartialFunction[Throwable, Throwable] = Function.unlift { (error: Throwable) =>
    import org.apache.kafka.common.errors.{AuthenticationException, AuthorizationException, SaslAuthenticationException}
    import org.apache.kafka.common.errors.{SslAuthenticationException, TimeoutException}
    val at = kafka.bootstrapServers.value
    def msg(e: Throwable) = Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
    Failures.chain(error).takeWhile(!_.isInstanceOf[bankops.base.Failure]).collectFirst {
      case e: TimeoutException => bankops.base.Failure.Unavailable(s"Kafka at $at did not answer within ${timeout.toSeconds} s (${msg(e)})", error)
      case e: SslAuthenticationException => bankops.base.Failure.Unavailable(
          s"Kafka at $at: TLS handshake failed (${msg(e)}); is this a Kafka SSL listener, and does ssl.truststore.location hold its CA?", error)
      // The broker's message says only "Authentication failed during authentication due to invalid credentials".
      case _: SaslAuthenticationException =>
        bankops.base.Failure.Unavailable(s"Kafka at $at: authentication failed for ${ClientIdentity.describe(kafka)} (wrong password?)", error)
      case e: AuthenticationException => bankops.base.Failure.Unavailable(s"Kafka at $at refused the client's credentials: ${msg(e)}", error)
      // The net under a request that did not say what it was doing (see Denied).
      case _: AuthorizationException => Denied.failure(error, Doing.Unknown, ClientIdentity.describe(kafka)).get
    }
  }

  /** For `adaptError` where a request is made: Kafka's refusal becomes exit 4 naming `doing`'s operation and the identity. */
  def denied(kafka: KafkaSettings, doing: Doing): PartialFunction[Throwable, Throwable] = Denied.adapt(kafka, doing)

  /** An idempotent, acks=all producer of raw bytes, batched for throughput; the command-config file's
    * producer keys (linger.ms, batch.size, compression.type, ...) override these defaults, but not what a write
    * means ([[exact]]).
    */
  def producerSettings(kafka: KafkaSettings, timeout: FiniteDuration): ProducerSettings[IO, Array[Byte], Array[Byte]] =
    ProducerSettings(Serializer.identity[IO], Serializer.identity[IO])
      .withBootstrapServers(kafka.bootstrapServers.value)
      .withLinger(10.millis)
      .withBatchSize(256 * 1024)
      // Kafka's default 32 MiB: a 128 MiB buffer let a full-speed sender queue ~0.5 s of batches, promoted
      // to the old generation before their acknowledgements came (heartbeat --rate 0: ~18% slower).
      .withProperty("buffer.memory", (32L * 1024 * 1024).toString)
      .withProperty("max.in.flight.requests.per.connection", "5")
      .withProperty("reconnect.backoff.max.ms", "1000")
      .withProperty("max.block.ms", timeout.toMillis.toString)
      .withRequestTimeout(timeout)
      .withDeliveryTimeout(timeout * 4)
      .withProperties(kafka.clientProperties)
      .pipe(exact)
      .withCloseTimeout(30.seconds)

  /** acks=all and idempotence, whatever a command-config says: a shared client file's `acks=1` would let a replay or a
    * restore lose a record a broker took and then lost, and a retry write one twice; the handler's transactions need
    * both (the Java client refuses a transactional producer without them).
    */
  private def exact[K, V](s: ProducerSettings[IO, K, V]): ProducerSettings[IO, K, V] = s.withAcks(Acks.All).withEnableIdempotence(true)

  /** The settings' properties as the Java clients' constructors take them. */
  def javaProperties(props: Map[String, String]): java.util.Map[String, AnyRef] = props.map { case (k, v) => k -> (v: AnyRef) }.asJava

  /** How long an unknown topic is asked for again before it is reported missing (see [[partitionCounts]]). */
  val UnknownGrace: FiniteDuration = 2.seconds

  /** The partition count of a topic; exit 2 naming it when it does not exist. `doing`: what the job will do with the
    * topic, which a refusal names (WRITE implies the DESCRIBE asked here, and is what the operator must grant).
    */
  def partitionCount(kafka: KafkaSettings, topic: String, timeout: FiniteDuration, doing: Option[Doing] = None): IO[Int] =
    partitionCounts(kafka, List(topic), timeout, doing).map(_(topic))

  /** Partition counts of several topics through one admin client; exit 2 naming the first that does not exist. */
  def partitionCounts(kafka: KafkaSettings, topics: List[String], timeout: FiniteDuration, doing: Option[Doing] = None): IO[Map[String, Int]] =
    javaAdmin(kafka, timeout).use { a =>
      def unknown(e: Throwable) = (e :: Option(e.getCause).toList).exists(
        _.isInstanceOf[org.apache.kafka.common.errors.UnknownTopicOrPartitionException])
      // A topic created a moment ago (by `apply`, a step before) can be unknown to the broker asked until it has read
      // the controller's record of it: an unknown topic is asked again for a short while before it is called missing.
      IO.monotonic.map(_ + UnknownGrace.min(timeout)).flatMap { until =>
        def count(topic: String): IO[Int] =
          await(a.describeTopics(List(topic).asJava).topicNameValues().get(topic)).map(_.partitions.size).handleErrorWith {
            case e if unknown(e) =>
              IO.monotonic.flatMap(now =>
                if (now < until) IO.sleep(250.millis) >> count(topic)
                else IO.raiseError(bankops.base.Failure.BadInput(s"topic $topic does not exist")))
            case e => IO.raiseError(e)
          }
        topics.traverse(t => count(t).map(t -> _)).map(_.toMap)
      }
    }.adaptError(denied(kafka, doing.getOrElse(Doing.describing(topics)))).adaptError(unreachable(kafka, timeout))
}

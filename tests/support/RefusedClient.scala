package bankops.support

import cats.effect.IO
import fs2.kafka.{AdminClientSettings, KafkaAdminClient}
import org.apache.kafka.common.errors.TimeoutException

import scala.concurrent.duration._

import bankops.services.kafka.KafkaClients

/** An admin client the sandbox's broker must refuse, for tests that it does. So that a broker that is down or an
  * address that is wrong cannot pass for a refusal, the same call is first made there by a client configured as every
  * job is, and must succeed.
  */
object RefusedClient {
  final case class Refusal(error: Throwable, took: FiniteDuration) {
    /** The error and its causes, outermost first. */
    def causes: List[Throwable] = Iterator.iterate(error)(_.getCause).takeWhile(_ != null).toList
    def describe: String = causes.map(e => s"${e.getClass.getName}: ${e.getMessage}").mkString(" <- ")
    /** Kafka's own time-out for a call that never got a node to ask: a plaintext client's at a TLS listener. */
    def noNode: Boolean = error.isInstanceOf[TimeoutException] && error.getMessage.startsWith("Timed out waiting for a node assignment. Call: ")
  }

  /** The client's call gives up within `apiTimeout`: its failure, and how long it took. */
  def refusal[A](props: Map[String, String], apiTimeout: FiniteDuration = 8.seconds)(call: KafkaAdminClient[IO] => IO[A]): IO[Refusal] =
    for {
      s <- SandboxFixture.settings
      c <- SandboxFixture.connection
      _ <- KafkaClients.admin(s.kafka).use(call).adaptError { case e => new AssertionError(s"a client configured as the jobs are failed too: $e", e) }
      settings = AdminClientSettings(c.bootstrapServers).withProperties(props)
        .withProperty("default.api.timeout.ms", apiTimeout.toMillis.toString).withRequestTimeout(apiTimeout - 1.second)
      result <- KafkaAdminClient.resource[IO](settings).use(call).attempt.timed
      refusal <- result match {
        case (took, Left(e)) => IO.pure(Refusal(e, took))
        case (_, Right(answer)) => IO.raiseError(new AssertionError(s"a client with $props was answered: $answer"))
      }
    } yield refusal
}

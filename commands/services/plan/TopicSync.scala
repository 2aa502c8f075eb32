package bankops.services.plan

import cats.effect.IO
import io.circe.Json
import io.circe.syntax._
import org.apache.kafka.common.errors.{
  ApiException, AuthorizationException, InvalidConfigurationException, InvalidPartitionsException, InvalidReplicationFactorException,
  PolicyViolationException, TimeoutException, UnknownTopicOrPartitionException
}

import java.util.concurrent.{CompletionException, ExecutionException}
import scala.concurrent.duration._

import bankops.base.{Failure, Rendered, Table}
import bankops.services.config.{ClientIdentity, KafkaSettings}
import bankops.services.contracts.Topology
import bankops.services.kafka.{Denied, KafkaClients}

/** Plan, gate, apply and confirm: the effectful steps `topics` and the combined `apply` share. */
object TopicSync {

  /** An admin session bounded by `timeout`: an unreachable broker is exit 3, never a hang. */
  def session[A](kafka: KafkaSettings, timeout: FiniteDuration)(f: TopicAdmin => IO[A]): IO[A] =
    KafkaClients.withAdmin(kafka, timeout)(a => f(new TopicAdmin(a, ClientIdentity.describe(kafka))))

  def plan(admin: TopicAdmin, topology: Topology, deleteUnlisted: Boolean): IO[TopicPlan] =
    admin.cluster(topology.names).map(TopicPlanner.plan(topology, _, deleteUnlisted))

  /** The broker checks every change without making it; what it refuses blocks the whole apply. */
  def refusals(admin: TopicAdmin, plan: TopicPlan): IO[List[Outcome]] =
    admin.execute(plan, validateOnly = true).map(_.filterNot(_.ok))

  /** Re-reads the cluster until it matches the topology (metadata settles within moments) or `patience` ends. */
  def confirm(admin: TopicAdmin, topology: Topology, patience: FiniteDuration = 15.seconds): IO[TopicPlan] = {
    val deadline = System.nanoTime() + patience.toNanos
    // A topic just created may be unknown for a moment to the broker answering (its metadata not there yet).
    def loop: IO[TopicPlan] = plan(admin, topology, deleteUnlisted = false).attempt.flatMap {
      case Right(p) if p.isEmpty || System.nanoTime() > deadline => IO.pure(p)
      case Left(e) if !unwrap(e).isInstanceOf[UnknownTopicOrPartitionException] || System.nanoTime() > deadline => IO.raiseError(e)
      case _ => IO.sleep(500.millis) >> loop
    }
    loop
  }

  def reason(error: Throwable): String = Denied.describe(error).map(d => s"not authorized to $d").getOrElse(unwrap(error) match {
    case e: Failure.NotAuthorized => e.message
    case e: ApiException => s"${e.getClass.getSimpleName.stripSuffix("Exception")}: ${e.getMessage}"
    case e => Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
  })

  /** Not authorized when the authorizer refused, bad input when the topology asked for something invalid, unavailable
    * when the broker did not answer, else a difference.
    */
  def failure(failed: List[Outcome]): Failure.Kind = {
    val errors = failed.flatMap(_.error).map(unwrap)
    if (errors.exists(e => e.isInstanceOf[AuthorizationException] || e.isInstanceOf[Failure.NotAuthorized])) Failure.Kind.NotAuthorized
    else if (errors.exists(_.isInstanceOf[TimeoutException])) Failure.Kind.Unavailable
    else if (errors.exists {
        case _: InvalidConfigurationException | _: InvalidPartitionsException | _: InvalidReplicationFactorException | _: PolicyViolationException =>
          true
        case _ => false
      }) Failure.Kind.BadInput
    else Failure.Kind.Difference
  }

  /** The Kafka error inside the futures' (and a refusal's tag's) wrappers. */
  def unwrap(e: Throwable): Throwable = e match {
    case c @ (_: CompletionException | _: ExecutionException | _: Denied.Tagged) if c.getCause != null => unwrap(c.getCause)
    case other => other
  }

  /** The plan to show: the environment chosen and the plan's warnings, then its changes. */
  def rendered(plan: TopicPlan): Rendered =
    Rendered.all(plan.environment.map(Rendered.note)) ++ Rendered.all(plan.warnings.map(w => Rendered.warning(w.message))) ++
      Rendered.result(List(plan.asJson),
        if (plan.isEmpty) "topics: no changes, the cluster matches the topology"
        else Table.render(List("TOPIC", "ACTION", "DETAIL"), plan.changes.map(c => List(c.topic, c.action, c.detail))))

  /** Each change made, a line (or a JSON value) each. */
  def rendered(outcomes: List[Outcome]): Rendered =
    Rendered.all(outcomes.map { o =>
      Rendered.result(List(Json.obj("topic" -> o.change.topic.asJson, "action" -> o.change.action.asJson,
            "detail" -> o.change.detail.asJson, "ok" -> o.ok.asJson, "error" -> o.error.map(reason).asJson)),
        s"${if (o.ok) "done  " else "FAILED"}  ${o.change.topic}  ${o.change.action}  " + o.error.fold(o.change.detail)(reason))
    })
}

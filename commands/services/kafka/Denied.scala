package bankops.services.kafka

import org.apache.kafka.common.acl.AclOperation
import org.apache.kafka.common.acl.AclOperation._
import org.apache.kafka.common.errors.{
  AuthorizationException, ClusterAuthorizationException, GroupAuthorizationException, TopicAuthorizationException,
  TransactionalIdAuthorizationException
}

import scala.jdk.CollectionConverters._

import bankops.base.{Failure, Failures}
import bankops.services.config.{ClientIdentity, KafkaSettings}

/** Kafka's refusals (exit 4) turned into one line naming the operation ([[Doing]]), the resource and the identity. */
object Denied {

  /** A refusal tagged with what was being done, by code that makes the request but does not hold the settings (an
    * admin helper given an `Admin`); the job's edge ([[adapt]], `KafkaClients.unreachable`) adds the identity.
    */
  final case class Tagged(doing: Doing, refusal: AuthorizationException)
      extends Exception(refusal.getMessage, refusal) with scala.util.control.NoStackTrace

  /** For `adaptError` where a request is made: the refusal in the chain, tagged with `doing` (an earlier tag stays). */
  def tag(doing: Doing): PartialFunction[Throwable, Throwable] = Function.unlift { (error: Throwable) =>
    val chain = Failures.chain(error).takeWhile(!_.isInstanceOf[Failure])
    if (chain.exists(_.isInstanceOf[Tagged])) None else chain.collectFirst { case e: AuthorizationException => Tagged(doing, e) }
  }

  /** The refusal in `error`'s cause chain (unless bankops already said what failed), as the line to show; a tag found
    * on the way says what was being done, else `doing`.
    */
  def failure(error: Throwable, doing: Doing, identity: => String): Option[Failure.NotAuthorized] = {
    val chain = Failures.chain(error).takeWhile(!_.isInstanceOf[Failure])
    chain.collectFirst {
      case Tagged(d, e) => (d, e)
      case e: AuthorizationException => (doing, e)
    }.map { case (d, e) => Failure.NotAuthorized(s"not authorized to ${describe(e, d)} as $identity", error) }
  }

  /** Fails with the tagged refusal when this identity may not DESCRIBE one of `topics` (which a topic listing leaves out
    * silently, as if absent); topics that do not exist pass.
    */
  def visible(admin: org.apache.kafka.clients.admin.Admin, topics: List[String]): cats.effect.IO[Unit] = {
    import cats.syntax.all._
    val futures = admin.describeTopics(topics.asJava).topicNameValues().asScala
    topics.traverse_(t => KafkaClients.await(futures(t)).void.recover { case e if !isRefusal(e) => () })
      .adaptError(tag(Doing.describing(topics)))
  }

  /** Whether Kafka's authorizer refused (anywhere in the chain): a refused send ends a run at once rather than counting errors. */
  def isRefusal(error: Throwable): Boolean =
    Failures.chain(error).exists(_.isInstanceOf[AuthorizationException])

  /** For `adaptError`: a refusal becomes exit 4 naming the operation, the resource and the identity of `kafka`'s properties. */
  def adapt(kafka: KafkaSettings, doing: Doing): PartialFunction[Throwable, Throwable] =
    Function.unlift((e: Throwable) => failure(e, doing, ClientIdentity.describe(kafka)))

  /** A tagged refusal's operation and resource without the identity (`CREATE topic t`), for per-change outcome lines. */
  def describe(error: Throwable): Option[String] =
    Failures.chain(error).collectFirst { case Tagged(d, e) => describe(e, d) }

  private def verb(op: AclOperation): String = if (op == UNKNOWN) "use" else op.name

  private def named(kind: String, names: List[String]): String = names.distinct.sorted match {
    case Nil => s"a $kind the broker did not name"
    case one :: Nil => s"$kind $one"
    case many => s"${kind}s ${many.mkString(", ")}"
  }

  /** The operation and the resource: `WRITE topic commands`, `READ group g`, `CREATE on the cluster`. */
  def describe(e: AuthorizationException, doing: Doing): String = e match {
    case t: TopicAuthorizationException =>
      val names = Option(t.unauthorizedTopics).map(_.asScala.toList).filter(_.nonEmpty).getOrElse(doing.topics)
      if (names.isEmpty) s"${verb(doing.topicOp)} ${named("topic", names)}"
      else names.groupBy(doing.topicOp).toList.sortBy(_._1.name).map { case (op, ts) => s"${verb(op)} ${named("topic", ts)}" }.mkString(" and ")
    case g: GroupAuthorizationException =>
      s"${verb(doing.groupOp)} ${named("group", Option(g.groupId).filter(_.nonEmpty).orElse(doing.group).toList)}"
    case _: TransactionalIdAuthorizationException =>
      s"WRITE ${named("transactional-id", doing.transactionalId.toList)}"
    case _: ClusterAuthorizationException if doing.clusterOp == IDEMPOTENT_WRITE && doing.topics.nonEmpty =>
      // Since Kafka 3.0 an idempotent producer's id is granted to whoever may WRITE some topic (KIP-679).
      s"WRITE ${named("topic", doing.topics)} (the broker refused a producer id: this identity may WRITE no topic)"
    case _: ClusterAuthorizationException => s"${verb(doing.clusterOp)} on the cluster"
    case other => s"${verb(doing.topicOp)} ${named("topic", doing.topics)} (${Option(other.getMessage).getOrElse(other.getClass.getSimpleName)})"
  }
}

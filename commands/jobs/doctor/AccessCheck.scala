package bankops.jobs.doctor

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.admin.{
  Admin, AlterConfigOp, AlterConfigsOptions, CreatePartitionsOptions, CreateTopicsOptions, NewPartitions, NewTopic
}
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.acl.{AccessControlEntryFilter, AclBinding, AclBindingFilter, AclOperation, AclPermissionType}
import org.apache.kafka.common.acl.AclOperation._
import org.apache.kafka.common.config.ConfigResource
import org.apache.kafka.common.errors.{
  AuthorizationException, InvalidPartitionsException, SecurityDisabledException, TopicExistsException, TransactionalIdNotFoundException,
  UnknownTopicOrPartitionException
}
import org.apache.kafka.common.resource.{ResourcePatternFilter, ResourceType}

import java.util.Optional
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.base.Failures
import bankops.services.config.{ClientIdentity, KafkaSettings}
import bankops.services.kafka.KafkaClients
import bankops.services.kafka.KafkaClients.await

/** Which identity doctor connects as and, per job ([[JobNeeds]]), whether it holds what the job needs: from the ACLs when
  * this identity may read them (its candidate principals and `User:*`; a super user holds everything), else by probes
  * that change nothing (describe a topic, its configs or a group, fetch at a partition's end, validate-only creates and
  * alters, describe a transactional id). What no harmless probe can show (WRITE on a topic, READ on a group) is unknown
  * unless a weaker probe already shows it missing: WRITE and READ imply DESCRIBE.
  */
private[doctor] final class AccessCheck(kafka: KafkaSettings, timeout: FiniteDuration) {
  private val identity = ClientIdentity.of(kafka.properties)
  private val principals = identity.principals.toSet

  import AccessCheck._

  private def describe(v: View): String = v match {
    case FromAcls(_) => s"access from the ACLs of ${(identity.principals :+ "User:*").mkString(", ")} (the brokers' principal mapping " +
        "decides which of these is this identity)"
    case SuperUser(principal) => s"$principal is a super user of the cluster (it may read the ACLs, and no ACL grants it that): " +
        "every job may do everything"
    case NoAuthorizer => "the cluster has no authorizer: every job may do everything"
    case Probes(why) => s"the ACLs are not readable by this identity ($why): access checked by probes that change nothing"
  }

  private def refused(e: Throwable): Boolean = Failures.causedBy[AuthorizationException](e)
  private def found[A: scala.reflect.ClassTag](e: Throwable): Boolean = Failures.causedBy[A](e)

  def checks: IO[List[Check]] =
    KafkaClients.javaAdmin(kafka, timeout).use { admin =>
      for {
        v <- view(admin)
        needs = JobNeeds.table.flatMap(_._2).distinct
        verdicts <- v match {
          case FromAcls(acls) => IO.pure(needs.map(n => n -> verdict(AclView.holds(acls, principals, n))).toMap)
          case Probes(_) => IO.parTraverseN(4)(needs)(n => probe(admin, n).map(n -> _)).map(_.toMap)
          case _ => IO.pure(needs.map(_ -> (Access.Held: Access)).toMap)
        }
      } yield {
        val who =
          Check("kafka identity", passed = !identity.isInstanceOf[ClientIdentity.Unreadable], s"${ClientIdentity.describe(kafka)}; ${describe(v)}")
        who :: JobNeeds.table.map { case (job, jobNeeds) => jobCheck(job, jobNeeds.map(n => n -> verdicts(n))) }
      }
    }

  private def verdict(held: Boolean): Access = if (held) Access.Held else Access.Missing

  private def jobCheck(job: String, verdicts: List[(Need, Access)]): Check = {
    def of(a: Access) = verdicts.collect { case (n, `a`) => n }
    val (missing, unknown) = (of(Access.Missing), of(Access.Unknown))
    val access = if (missing.nonEmpty) Access.Missing else if (unknown.nonEmpty) Access.Unknown else Access.Held
    val detail = access match {
      case Access.Held => s"holds what it needs: ${JobNeeds.summary(verdicts.map(_._1))}"
      case _ =>
        (Option.when(missing.nonEmpty)(s"missing ${JobNeeds.summary(missing)}") ++
          Option.when(unknown.nonEmpty)(s"not known without changing something: ${JobNeeds.summary(unknown)}")).mkString("; ")
    }
    Check(s"access $job", access == Access.Held, detail, Some(access))
  }

  /** The ACLs of this identity's candidate principals, if it may read them; a super user or a cluster without an
    * authorizer holds everything.
    */
  private def view(admin: Admin): IO[View] = {
    val filters = (identity.principals :+ "User:*").map(p =>
      new AclBindingFilter(ResourcePatternFilter.ANY, new AccessControlEntryFilter(p, null, AclOperation.ANY, AclPermissionType.ANY)))
    filters.flatTraverse(f => await(admin.describeAcls(f).values()).map(_.asScala.toList)).attempt.flatMap {
      case Right(acls) =>
        // Reading ACLs takes DESCRIBE on the cluster: when none of these ACLs grants it, the brokers let this identity
        // read them for another reason, in practice super.users (which brokers may not report among their configs).
        val cluster = Need(DESCRIBE, ResourceType.CLUSTER, "kafka-cluster")
        superUser(admin).map(_.orElse(Option.when(!AclView.holds(acls, principals, cluster))(identity.principals.mkString(" or ")))
            .fold[View](FromAcls(acls))(SuperUser(_)))
      case Left(e) if found[SecurityDisabledException](e) => IO.pure(NoAuthorizer)
      case Left(e) if refused(e) => IO.pure(Probes("no DESCRIBE on the cluster"))
      case Left(e) => IO.raiseError(e)
    }
  }

  /** The candidate principal listed in a broker's `super.users`, when its configs are readable. */
  private def superUser(admin: Admin): IO[Option[String]] =
    (for {
      node <- await(admin.describeCluster().nodes()).map(_.asScala.head.idString)
      resource = new ConfigResource(ConfigResource.Type.BROKER, node)
      config <- await(admin.describeConfigs(List(resource).asJava).all()).map(_.get(resource))
    } yield Option(config.get("super.users")).flatMap(e => Option(e.value)).toList.flatMap(_.split(';').map(_.trim))
      .find(principals)).handleError(_ => None)

  private def held(io: IO[Any]): IO[Access] = io.as(Access.Held: Access).recover { case e if refused(e) => Access.Missing }

  /** What a probe that changes nothing says about one need; a failure other than a refusal is unknown. */
  private def probe(admin: Admin, need: Need): IO[Access] = {
    val name = need.name
    val topic = await(admin.describeTopics(List(name).asJava).allTopicNames()).map(_.get(name))
    val describe = held(topic)
    val result: IO[Access] = (need.resource, need.operation) match {
      case (ResourceType.TOPIC, DESCRIBE) => describe
      case (ResourceType.TOPIC, READ) => describe.flatMap {
          case Access.Held => held(fetchAtEnd(name))
          case other => IO.pure(other)
        }
      case (ResourceType.TOPIC, DESCRIBE_CONFIGS) =>
        held(await(admin.describeConfigs(List(new ConfigResource(ConfigResource.Type.TOPIC, name)).asJava).all()))
      case (ResourceType.TOPIC, ALTER_CONFIGS) =>
        val none = Map(new ConfigResource(ConfigResource.Type.TOPIC, name) ->
          (List.empty[AlterConfigOp].asJavaCollection: java.util.Collection[
            AlterConfigOp])).asJava
        held(await(admin.incrementalAlterConfigs(none, new AlterConfigsOptions().validateOnly(true)).all()))
      case (ResourceType.TOPIC, ALTER) =>
        // Asking for the partitions it has: the broker checks ALTER first, then refuses the count; validate-only anyway.
        topic.flatMap(d =>
          held(await(admin.createPartitions(Map(name -> NewPartitions.increaseTo(d.partitions.size)).asJava,
                new CreatePartitionsOptions().validateOnly(true)).all()).recover { case e if found[InvalidPartitionsException](e) => () }))
          .recover { case e if refused(e) => Access.Missing }
      case (ResourceType.TOPIC, CREATE) =>
        held(await(admin.createTopics(List(new NewTopic(name, Optional.empty[Integer], Optional.empty[java.lang.Short])).asJava,
              new CreateTopicsOptions().validateOnly(true)).all()).recover { case e if found[TopicExistsException](e) => () })
      case (ResourceType.TOPIC, _) => describe.map(weaker)
      case (ResourceType.GROUP, op) =>
        held(await(admin.describeConsumerGroups(List(name).asJava).all())).map(a => if (op == DESCRIBE) a else weaker(a))
      case (ResourceType.CLUSTER, op) =>
        held(await(admin.describeAcls(AclBindingFilter.ANY).values())).map(a => if (op == DESCRIBE) a else weaker(a))
      case (ResourceType.TRANSACTIONAL_ID, _) =>
        val id = if (need.prefixed) s"$name-doctor" else name
        held(await(admin.describeTransactions(List(id).asJava).all()).recover { case e if found[TransactionalIdNotFoundException](e) => () })
          .map(weaker)
      case _ => IO.pure(Access.Unknown)
    }
    result.timeoutTo(timeout, IO.pure(Access.Unknown)).recover {
      case e if found[UnknownTopicOrPartitionException](e) => Access.Unknown
      case _ => Access.Unknown
    }
  }

  /** A probe of DESCRIBE, which the operation implies: missing shows it missing; held tells nothing more. */
  private def weaker(a: Access): Access = if (a == Access.Missing) Access.Missing else Access.Unknown

  /** A fetch at the end of partition 0: the broker checks READ and returns nothing. */
  private def fetchAtEnd(topic: String): IO[Unit] =
    KafkaClients.javaConsumer(kafka, timeout, few = Some(1)).use(c =>
      IO.blocking {
        val tp = new TopicPartition(topic, 0)
        c.assign(List(tp).asJava)
        c.seekToEnd(List(tp).asJava)
        c.position(tp)
        c.poll(java.time.Duration.ofMillis(1000))
        ()
      })
}

private[doctor] object AccessCheck {
  private sealed trait View
  private final case class FromAcls(acls: List[AclBinding]) extends View
  private final case class SuperUser(principal: String) extends View
  private case object NoAuthorizer extends View
  private final case class Probes(why: String) extends View
}

package bankops.services.plan

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.admin.{
  Admin, DescribeClusterOptions, ScramCredentialInfo, ScramMechanism, UserScramCredentialDeletion, UserScramCredentialUpsertion
}
import org.apache.kafka.common.acl.{AccessControlEntry, AclBinding, AclBindingFilter, AclOperation, AclPermissionType}
import org.apache.kafka.common.errors.SecurityDisabledException
import org.apache.kafka.common.resource.{PatternType, ResourcePattern, ResourceType}

import scala.jdk.CollectionConverters._

import bankops.services.kafka.{Denied, Doing}
import bankops.services.kafka.KafkaClients.await

/** The effectful edge of access as code: reads the cluster's ACLs and SCRAM users, and changes them, as `identity`
  * (the client's principal, for refusal lines).
  */
final class AclAdmin(admin: Admin, val identity: String) {

  /** Whether this client may create and delete ACLs and SCRAM users (ALTER on the cluster), asked without changing
    * anything: the broker's list of the caller's operations on the cluster. None when the broker does not say.
    */
  def mayAlter: IO[Option[Boolean]] =
    await(admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true)).authorizedOperations())
      .map(ops => Option(ops).map(_.asScala.exists(op => op == AclOperation.ALTER || op == AclOperation.ALL)))

  /** Every ACL the cluster holds; Left when the brokers run without an authorizer. */
  def acls: IO[Either[String, List[AclEntry]]] =
    await(admin.describeAcls(AclBindingFilter.ANY).values()).map(_.asScala.toList.map(AclAdmin.entry).asRight[String]).recover {
      case e if TopicSync.unwrap(e).isInstanceOf[SecurityDisabledException] =>
        Left("the brokers run without an authorizer (SecurityDisabledException); set authorizer.class.name")
    }.adaptError(Denied.tag(Doing.onCluster(AclOperation.DESCRIBE)))

  /** Each SCRAM user and the mechanisms it has credentials for. */
  def credentials: IO[Map[String, Set[String]]] =
    await(admin.describeUserScramCredentials().all()).map(_.asScala.toMap.map { case (user, d) =>
      user -> d.credentialInfos.asScala.map(_.mechanism.mechanismName).toSet
    }).adaptError(Denied.tag(Doing.onCluster(AclOperation.DESCRIBE)))

  def create(acls: List[AclEntry]): IO[Unit] =
    if (acls.isEmpty) IO.unit else await(admin.createAcls(acls.map(AclAdmin.binding).asJava).all()).void.adaptError(altering)

  def delete(acls: List[AclEntry]): IO[Unit] =
    if (acls.isEmpty) IO.unit else await(admin.deleteAcls(acls.map(a => AclAdmin.binding(a).toFilter).asJava).all()).void.adaptError(altering)

  /** Creates (or replaces) each user's credential with its password. */
  def upsert(users: List[(UserChange, String)]): IO[Unit] =
    if (users.isEmpty) IO.unit
    else await(admin.alterUserScramCredentials(users.map { case (u, password) =>
      new UserScramCredentialUpsertion(u.user, new ScramCredentialInfo(ScramMechanism.fromMechanismName(u.mechanism), AclAdmin.Iterations),
        password): org.apache.kafka.clients.admin.UserScramCredentialAlteration
    }.asJava).all()).void.adaptError(altering)

  def deleteUsers(users: List[UserChange]): IO[Unit] =
    if (users.isEmpty) IO.unit
    else await(admin.alterUserScramCredentials(users.map(u =>
          new UserScramCredentialDeletion(u.user,
            ScramMechanism.fromMechanismName(u.mechanism)): org.apache.kafka.clients.admin.UserScramCredentialAlteration)
          .asJava).all()).void.adaptError(altering)

  /** ACLs and SCRAM users are changed with ALTER on the cluster. */
  private val altering = Denied.tag(Doing.onCluster(AclOperation.ALTER))
}

object AclAdmin {
  /** SCRAM iterations for new credentials: twice Kafka's minimum of 4096. */
  val Iterations = 8192

  def entry(b: AclBinding): AclEntry = {
    val (p, e) = (b.pattern, b.entry)
    AclEntry(e.principal, p.resourceType.name, p.name, p.patternType.name, e.operation.name, e.host, e.permissionType.name)
  }

  def binding(a: AclEntry): AclBinding =
    new AclBinding(new ResourcePattern(ResourceType.valueOf(a.resourceType), a.name, PatternType.valueOf(a.patternType)),
      new AccessControlEntry(a.principal, a.host, AclOperation.valueOf(a.operation), AclPermissionType.valueOf(a.permission)))
}

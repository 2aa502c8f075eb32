package bankops.services.plan

import cats.effect.IO
import cats.syntax.all._
import io.circe.Json
import io.circe.syntax._
import org.apache.kafka.common.errors.{AuthorizationException, TimeoutException}

import scala.concurrent.duration._

import bankops.base.{Failure, Rendered, Table, TextFile}
import bankops.services.contracts.{PasswordSource, Topology}

/** Plan, gate, apply and confirm of ACLs and SCRAM users: the effectful steps `plan`/`apply` take after topics. */
object AccessSync {

  /** The access plan and the passwords of the users it would create; a password that cannot be read is a refusal.
    * A topology without `access` and `users` reads nothing (a cluster without an authorizer keeps working).
    */
  def plan(admin: AclAdmin, topology: Topology, deleteUnlisted: Boolean, env: Map[String, String], strict: Boolean = false)
      : IO[(AccessPlan, Map[String, String])] =
    if (topology.access.isEmpty && topology.users.isEmpty) IO.pure(AccessPlan.unmanaged -> Map.empty)
    else for {
      acls <- if (topology.access.isDefined) admin.acls else IO.pure(Right(Nil))
      credentials <- if (topology.users.isDefined) admin.credentials else IO.pure(Map.empty[String, Set[String]])
      plan = AccessPlanner.plan(topology, AccessState(acls, credentials), deleteUnlisted)
      wanted = plan.users.filter(_.action == AccessPlan.Create).map(_.user).toSet
      read <- topology.users.toList.flatten.filter(u => wanted(u.name)).traverse(u => IO.blocking(u.name -> password(u.name, u.password, env)))
      // Asked before anything changes: apply makes the topics first, and a refusal only then would leave them changed.
      denied <- if (plan.isEmpty) IO.pure(false) else admin.mayAlter.map(_.contains(false))
      notAllowed = Option.when(denied)(
        s"refused: access: not authorized to ALTER the cluster as ${admin.identity}: creating and deleting ACLs and SCRAM users needs it")
      warned <- if (strict) IO.blocking(AccessWarnings.of(topology).map(w => s"refused (--strict): $w")) else IO.pure(Nil)
    } yield (plan.copy(refusals = plan.refusals ++ read.collect { case (_, Left(e)) => e } ++ notAllowed ++ warned, notAuthorized = denied),
      read.collect { case (u, Right(p)) => u -> p }.toMap)

  /** A password from its variable or file (a file's trailing newline dropped); never from the topology. */
  def password(user: String, source: PasswordSource, env: Map[String, String]): Either[String, String] = {
    val missing = s"refused: users.$user: the ${source.describe} holding the password of SCRAM user $user"
    source match {
      case PasswordSource.Env(v) => env.get(v).filter(_.nonEmpty).toRight(s"$missing is not set")
      case PasswordSource.File(p) =>
        TextFile.readPrivate(p).left.map(why => s"refused: users.$user: password file of SCRAM user $user: $why")
          .flatMap(text => Some(text.stripLineEnd).filter(_.nonEmpty).toRight(s"$missing is empty"))
    }
  }

  /** Makes the plan's changes: ACLs added, users created, then what --delete-unlisted removes. Fails on the first refusal. */
  def execute(admin: AclAdmin, plan: AccessPlan, passwords: Map[String, String]): IO[Unit] = {
    def acls(action: String) = plan.acls.filter(_.action == action).map(_.acl)
    def users(action: String) = plan.users.filter(_.action == action)
    admin.create(acls(AccessPlan.Add)) >>
      admin.upsert(users(AccessPlan.Create).map(u => u -> passwords(u.user))) >>
      admin.delete(acls(AccessPlan.Delete)) >>
      admin.deleteUsers(users(AccessPlan.Delete))
  }

  /** Re-reads the cluster until ACLs and users match (the authorizer's metadata settles within moments) or `patience` ends. */
  def confirm(admin: AclAdmin, topology: Topology, deleteUnlisted: Boolean, env: Map[String, String], patience: FiniteDuration = 15.seconds)
      : IO[AccessPlan] = {
    val deadline = System.nanoTime() + patience.toNanos
    def loop: IO[AccessPlan] = plan(admin, topology, deleteUnlisted, env).map(_._1).flatMap { p =>
      if (p.isEmpty || System.nanoTime() > deadline) IO.pure(p) else IO.sleep(500.millis) >> loop
    }
    loop
  }

  /** Not authorized when the authorizer refused, unavailable when the broker did not answer, else a difference. */
  def failure(error: Throwable): Failure.Kind = TopicSync.unwrap(error) match {
    case _: AuthorizationException => Failure.Kind.NotAuthorized
    case _: TimeoutException => Failure.Kind.Unavailable
    case _ => Failure.Kind.Difference
  }

  /** The plan to show: ACL and user changes (those the topology manages), then the drift left alone. */
  def rendered(plan: AccessPlan): Rendered = {
    val acls = Rendered.result(List(Json.obj("acls" -> plan.acls.asJson)),
      if (plan.acls.isEmpty) "acls: no changes, the cluster's ACLs match the topology"
      else Table.render(List("ACL", "PRINCIPAL", "PERMISSION", "OPERATION", "RESOURCE", "HOST"),
        plan.acls.map(c => List(c.action, c.acl.principal, c.acl.permission, c.acl.operation, c.acl.resource, c.acl.host))))
    val users = Rendered.result(List(Json.obj("users" -> plan.users.asJson)),
      if (plan.users.isEmpty) "users: none declared, none on the cluster"
      else Table.render(List("USER", "MECHANISM", "ACTION", "DETAIL"), plan.users.map(u => List(u.user, u.mechanism, u.action, u.detail))))
    acls.when(plan.managesAcls) ++ users.when(plan.managesUsers) ++
      Rendered.note(s"access: ${plan.drift} ACLs/users on the cluster are not in the topology; left alone (--delete-unlisted --yes deletes them)")
        .when(plan.drift > 0)
  }

  /** The changes an apply made, one line each. */
  def renderedDone(plan: AccessPlan): Rendered =
    Rendered.all(
      plan.aclChanges.map(c => Rendered.result(List(Json.obj("acl" -> c.asJson, "ok" -> true.asJson)), s"done    acl ${c.action}  ${c.acl.show}")) ++
        plan.userChanges.map(u =>
          Rendered.result(List(Json.obj("user" -> u.asJson, "ok" -> true.asJson)), s"done    user ${u.action}  ${u.user} ${u.mechanism}")))
}

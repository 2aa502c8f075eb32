package bankops.services.plan

import bankops.services.contracts.Topology

/** What the cluster holds of what bankops manages: its ACLs (Left: why they cannot be read, e.g. no authorizer),
  * and each SCRAM user's mechanisms.
  */
final case class AccessState(acls: Either[String, List[AclEntry]], credentials: Map[String, Set[String]])

/** Pure: what must change for the cluster's ACLs and SCRAM users to match the topology. What the cluster holds and the
  * topology does not list is drift, shown and left alone unless `deleteUnlisted`.
  */
object AccessPlanner {

  def plan(topology: Topology, state: AccessState, deleteUnlisted: Boolean): AccessPlan = {
    val unlisted = if (deleteUnlisted) AccessPlan.Delete else AccessPlan.Unlisted
    val (acls, refusals) = topology.access match {
      case None => (Nil, Nil)
      case Some(access) =>
        state.acls match {
          case Left(why) =>
            (Nil, List(s"refused: access: the topology declares ACLs but the cluster cannot hold them: $why"))
          case Right(held) =>
            val wanted = AclExpansion.expand(access)
            val have = held.toSet
            (wanted.filterNot(have).map(AclChange(AccessPlan.Add, _)) ++
                held.distinct.sorted.filterNot(wanted.toSet).map(AclChange(unlisted, _)), Nil)
        }
    }
    val users = topology.users.toList.flatMap { declared =>
      val wanted = declared.map(u => u.name -> u.mechanism).toSet
      declared.map(u =>
        UserChange(if (state.credentials.getOrElse(u.name, Set.empty)(u.mechanism)) AccessPlan.Present else AccessPlan.Create, u.name,
          u.mechanism)) ++
        state.credentials.toList.flatMap { case (u, ms) => ms.toList.map(u -> _) }.sorted.filterNot(wanted).map { case (u, m) =>
          UserChange(unlisted, u, m)
        }
    }
    AccessPlan(topology.access.isDefined, topology.users.isDefined, acls, users, refusals)
  }
}

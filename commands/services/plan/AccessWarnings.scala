package bankops.services.plan

import java.nio.file.Files
import java.nio.file.attribute.PosixFilePermission._
import scala.jdk.CollectionConverters._

import bankops.services.contracts.{NamePattern, PasswordSource, Topology}

/** Access as code that Kafka takes but an operator rarely means: a grant to every principal, a `*` in a prefix (Kafka
  * matches it literally, so it grants nothing it seems to), and a SCRAM password file that others can read or that lives
  * outside the topology's folder (a topology copied elsewhere then reads someone else's file). Warnings, or with
  * `--strict` refusals of the plan.
  */
object AccessWarnings {
  def of(topology: Topology): List[String] = {
    val dir = topology.file / os.up
    val grants = topology.access.toList.flatten.flatMap { a =>
      val everyone = Option.when(a.principal == "User:*")(
        s"access.${a.principal}: grants every principal (any certificate or SCRAM user); name each service instead")
      val stars = a.grants.zipWithIndex.flatMap { case (g, i) =>
        def star(key: String, p: Option[NamePattern]) = p.filter(p => p.prefixed && p.name.contains('*')).map(p =>
          s"access.${a.principal}[$i].$key: '${p.name}' is a literal prefix to Kafka (only names starting with '${p.name}'), not a wildcard")
        g.topics.flatMap(p => star("topicPrefix", Some(p))) ++ star("groupPrefix", g.group) ++ star("transactionalIdPrefix", g.transactionalId)
      }
      everyone.toList ++ stars
    }
    val files = topology.users.toList.flatten.flatMap { u =>
      u.password match {
        case PasswordSource.File(p) if os.exists(p) =>
          val at = s"users.${u.name}.password.file $p"
          val perms = scala.util.Try(Files.getPosixFilePermissions(p.toNIO).asScala.toSet).getOrElse(Set.empty)
          val readable = List(GROUP_READ -> "its group", OTHERS_READ -> "every user").collect { case (b, who) if perms(b) => who }
          Option.when(readable.nonEmpty)(s"$at is readable by ${readable.mkString(" and ")} (chmod 600 it)").toList ++
            Option.when(!p.startsWith(dir))(s"$at is outside the topology's folder $dir").toList
        case _ => Nil
      }
    }
    grants ++ files
  }
}

package bankops.services.contracts

import cats.syntax.all._
import io.circe.Json

import JsonFields._

/** Reads the topology's `access` and `users` sections; every error names its path (`access.User:handler[0].role: ...`).
  *
  * {{{
  * "access": { "User:handler": [ { "role": "consumer", "topics": ["commands"], "group": "bankops-command-handler" },
  *                               { "role": "transactional-producer", "topics": ["balance_changed"], "transactionalIdPrefix": "bankops-" } ] },
  * "users": { "loader": { "mechanism": "SCRAM-SHA-512", "password": { "env": "BANKOPS_SCRAM_LOADER_PASSWORD" } } }
  * }}}
  * A topic named in `topics` must be one the topology declares; `topicPrefix` covers topics it does not, explicitly.
  */
object AccessFile {

  private val grantKeys = Set("role", "topics", "topicPrefix", "group", "groupPrefix", "transactionalId", "transactionalIdPrefix")
  private val principalName = "User:(\\S+)".r
  private val userName = "[A-Za-z0-9._@-]{1,255}".r
  private val variable = "[A-Za-z_][A-Za-z0-9_]*".r

  def access(json: Json, declared: Set[String]): R[List[Access]] =
    obj("access", json, Set.empty, Set.empty, anyKey = true).flatMap(_.toList.traverse { case (principal, grants) =>
      val at = s"access.$principal"
      for {
        _ <- principal match {
          case "" => Left("access: an empty principal (write User:<name>)")
          case principalName(_) => Right(())
          case p => Left(s"$at: a principal is User:<name> (the certificate's CN or the SCRAM user), got '$p'")
        }
        list <- list(at, grants)
        _ <- if (list.isEmpty) Left(s"$at: grants nothing (remove the principal, or give it a role)") else Right(())
        parsed <- list.zipWithIndex.traverse { case (g, i) => grant(s"$at[$i]", g, declared) }
      } yield Access(principal, parsed)
    })

  private def grant(at: String, json: Json, declared: Set[String]): R[Grant] =
    for {
      o <- obj(at, json, grantKeys, Set("role"))
      name <- str(s"$at.role", o("role").get)
      role <- Role.parse(name).toRight(s"$at.role: unknown role '$name' (known: ${Role.all.map(_.name).mkString(", ")})")
      topics <- o("topics").fold[R[List[Json]]](Right(Nil))(list(s"$at.topics", _))
      literal <- topics.zipWithIndex.traverse { case (t, i) =>
        str(s"$at.topics[$i]", t).flatMap(n =>
          if (declared(n)) Right(NamePattern(n, prefixed = false))
          else Left(s"$at.topics[$i]: topic '$n' is not declared in the topology (declare it, or grant it with topicPrefix)"))
      }
      prefix <- pattern(at, o("topicPrefix"), "topicPrefix", prefixed = true)
      _ <- if (literal.isEmpty && prefix.isEmpty) Left(s"$at: names no topic (give topics or topicPrefix)") else Right(())
      group <- one(at, o, "group", "groupPrefix")
      txn <- one(at, o, "transactionalId", "transactionalIdPrefix")
      _ <- (role, group, txn) match {
        case (r, Some(_), _) if r != Role.Consumer => Left(s"$at: group/groupPrefix belongs to the consumer role, not ${r.name}")
        case (r, _, Some(_)) if r != Role.TransactionalProducer =>
          Left(s"$at: transactionalId/transactionalIdPrefix belongs to the transactional-producer role, not ${r.name}")
        case (Role.TransactionalProducer, _, None) => Left(s"$at.transactionalIdPrefix: missing (or transactionalId)")
        case _ => Right(())
      }
    } yield Grant(role, literal ++ prefix.toList, group, txn)

  /** At most one of an exact name and a prefix. */
  private def one(at: String, o: io.circe.JsonObject, exact: String, prefix: String): R[Option[NamePattern]] =
    if (o.contains(exact) && o.contains(prefix)) Left(s"$at: $exact and $prefix exclude each other")
    else pattern(at, o(exact), exact, prefixed = false).flatMap(e => pattern(at, o(prefix), prefix, prefixed = true).map(e orElse _))

  private def pattern(at: String, json: Option[Json], key: String, prefixed: Boolean): R[Option[NamePattern]] =
    json.traverse(str(s"$at.$key", _).map(NamePattern(_, prefixed)))

  def users(json: Json, dir: os.Path): R[List[ScramUser]] =
    obj("users", json, Set.empty, Set.empty, anyKey = true).flatMap(_.toList.traverse { case (name, u) =>
      val at = s"users.$name"
      for {
        _ <- name match {
          case userName() => Right(())
          case _ => Left(s"$at: '$name' is not a user name bankops accepts (letters, digits, '.', '_', '@', '-')")
        }
        o <- obj(at, u, Set("mechanism", "password"), Set("password"))
        mechanism <- o("mechanism").fold[R[String]](Right(ScramUser.Mechanisms.head))(str(s"$at.mechanism", _).flatMap(m =>
            if (ScramUser.Mechanisms.contains(m)) Right(m) else Left(s"$at.mechanism: '$m' is not one of ${ScramUser.Mechanisms.mkString(", ")}")))
        password <- password(s"$at.password", o("password").get, dir)
      } yield ScramUser(name, mechanism, password)
    })

  private def password(at: String, json: Json, dir: os.Path): R[PasswordSource] = {
    val shape = s"""$at: must be {"env": "VARIABLE"} or {"file": "PATH"}; a password never goes in the topology"""
    json.asObject.filter(_.size == 1).toRight(shape).flatMap { o =>
      (o("env"), o("file")) match {
        case (Some(v), _) => str(s"$at.env", v).flatMap {
            case n @ variable() => Right(PasswordSource.Env(n))
            case n => Left(s"$at.env: '$n' is not an environment variable name")
          }
        case (_, Some(f)) => str(s"$at.file", f).map(p => PasswordSource.File(os.Path(p, dir)))
        case _ => Left(shape)
      }
    }
  }
}

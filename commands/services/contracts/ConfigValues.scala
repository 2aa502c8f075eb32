package bankops.services.contracts

import bankops.base.DurationText

/** Topic config values in one canonical form, so the plan compares meaning, not spelling:
  * `15m` and `900000` are the same `retention.ms`, `1GiB` the same `segment.bytes` as
  * `1073741824`, `Compact,Delete` the same `cleanup.policy` as `delete,compact`.
  */
object ConfigValues {
  private val sizeUnits = List(
    "kib" -> 1024L, "mib" -> 1024L * 1024, "gib" -> 1024L * 1024 * 1024,
    "kb" -> 1000L, "mb" -> 1000L * 1000, "gb" -> 1000L * 1000 * 1000, "b" -> 1L
  )
  private val lists = Set("cleanup.policy", "leader.replication.throttled.replicas", "follower.replication.throttled.replicas")

  private def isDuration(key: String) = key.endsWith(".ms")
  private def isSize(key: String) = key.endsWith(".bytes")

  /** The declared value as Kafka takes it; units are accepted on `*.ms` and `*.bytes` keys. */
  def canonical(key: String, raw: String): Either[String, String] = {
    val v = raw.trim.replace("_", "")
    if (v.isEmpty) Left("empty value")
    else if (isDuration(key)) v.toLongOption.map(n => Right(n.toString)).getOrElse(DurationText.parse(v).map(_.toMillis.toString).left.map(e =>
        if (e.endsWith("too large")) s"'$v' is too large" else s"'$v' is not a duration such as 900000, 15m, 7d"))
    else if (isSize(key)) withUnit(v, sizeUnits, "a size such as 1048576, 1MiB, 1GB")
    else if (lists(key)) Right(v.split(",").map(_.trim.toLowerCase).filter(_.nonEmpty).distinct.sorted.mkString(","))
    else if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) Right(v.toLowerCase)
    else Right(v)
  }

  private def withUnit(v: String, units: List[(String, Long)], expected: String): Either[String, String] = {
    val lower = v.toLowerCase
    v.toLongOption.map(_.toString).map(Right(_)).getOrElse {
      units.collectFirst {
        case (u, factor) if lower.endsWith(u) && lower.dropRight(u.length).trim.toLongOption.isDefined =>
          val n = lower.dropRight(u.length).trim.toLong
          if (n != 0 && math.abs(n) > Long.MaxValue / factor) Left(s"'$v' is too large") else Right((n * factor).toString)
      }.getOrElse(Left(s"'$v' is not $expected"))
    }
  }

  /** Whether the cluster's effective value means what the topology declares. */
  def same(key: String, declared: String, effective: String): Boolean = {
    val e = canonical(key, effective).getOrElse(effective.trim)
    e == declared || e.equalsIgnoreCase(declared)
  }
}

package bankops.services.config

final case class DatabaseSettings(url: Sourced[String], user: Sourced[String], password: Option[Sourced[String]])

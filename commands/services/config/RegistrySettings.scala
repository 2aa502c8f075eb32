package bankops.services.config

final case class RegistrySettings(
    url: Sourced[String],
    userInfo: Option[Sourced[String]],
    caFile: Option[Sourced[os.Path]]
)

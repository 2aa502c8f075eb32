package bankops.services.kafka

import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource

/** A topic config as the broker resolves it: the value in force, where it comes from, and the lower-precedence values
  * it overrides (a broker's `log.retention.hours` under a topic's `retention.ms`). A sensitive value is never shown.
  */
final case class ConfigSetting(name: String, value: Option[String], source: String, sensitive: Boolean, overrides: List[ConfigSetting] = Nil)

object ConfigSetting {
  /** Kafka's sources, named by where an operator would change them. */
  def sourceName(s: ConfigSource): String = s match {
    case ConfigSource.DYNAMIC_TOPIC_CONFIG => "topic"
    case ConfigSource.DEFAULT_CONFIG => "default"
    case ConfigSource.STATIC_BROKER_CONFIG => "broker"
    case ConfigSource.DYNAMIC_BROKER_CONFIG => "broker-dynamic"
    case ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG => "cluster-dynamic"
    case other => other.name.toLowerCase.replace('_', '-')
  }
}

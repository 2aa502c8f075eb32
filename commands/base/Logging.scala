package bankops.base

/** Library logging (slf4j-simple, on stderr): WARN and above, everything with --verbose.
  * Must run before the first logger is created, i.e. before any Kafka client exists.
  */
object Logging {
  def configure(verbose: Boolean): Unit = {
    def set(key: String, value: String): Unit = if (sys.props.get(key).isEmpty) sys.props.update(key, value)
    set("org.slf4j.simpleLogger.logFile", "System.err")
    set("org.slf4j.simpleLogger.defaultLogLevel", if (verbose) "debug" else "warn")
    set("org.slf4j.simpleLogger.showDateTime", "true")
    if (!verbose) {
      // Unreachable brokers are reported by bankops itself as one line, not per reconnect attempt.
      set("org.slf4j.simpleLogger.log.org.apache.kafka.clients.NetworkClient", "error")
      // Settings shared by all clients are not an operator's concern.
      set("org.slf4j.simpleLogger.log.org.apache.kafka.clients.admin.AdminClientConfig", "error")
      set("org.slf4j.simpleLogger.log.org.apache.kafka.clients.producer.ProducerConfig", "error")
      set("org.slf4j.simpleLogger.log.org.apache.kafka.clients.consumer.ConsumerConfig", "error")
    }
  }
}

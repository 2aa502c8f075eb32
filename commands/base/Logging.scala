package bankops.base

/** Library logging (slf4j-simple, on stderr): WARN and above except the Kafka clients', everything with --verbose.
  * Must run before the first logger is created, i.e. before any Kafka client exists.
  */
object Logging {
  def configure(verbose: Boolean): Unit = {
    def set(key: String, value: String): Unit = if (sys.props.get(key).isEmpty) sys.props.update(key, value)
    set("org.slf4j.simpleLogger.logFile", "System.err")
    set("org.slf4j.simpleLogger.defaultLogLevel", if (verbose) "debug" else "warn")
    set("org.slf4j.simpleLogger.showDateTime", "true")
    // The Kafka clients log each reconnect, failed handshake (with its stack trace) and setting; bankops reports
    // what failed itself, as one line naming the address or setting. --verbose shows everything.
    if (!verbose) set("org.slf4j.simpleLogger.log.org.apache.kafka", "off")
  }
}

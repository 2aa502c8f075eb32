package bankops.jobs.latency

/** What /proc says of a process at one moment: CPU time used so far (clock ticks) and resident memory. */
private[latency] final case class ProcSample(pid: Long, cpuTicks: Long, rssBytes: Long)

private[latency] object ProcSample {
  /** From the texts of /proc/PID/stat and /proc/PID/status. The command name in stat may hold spaces and
    * parentheses, so fields are counted after its last ')': utime and stime are fields 14 and 15.
    */
  def parse(pid: Long, stat: String, status: String): Option[ProcSample] = {
    val afterName = stat.substring(stat.lastIndexOf(')') + 1).trim.split("\\s+")
    // afterName(0) is field 3 (state): field n is afterName(n - 3).
    val ticks = for {
      u <- afterName.lift(11).flatMap(_.toLongOption)
      s <- afterName.lift(12).flatMap(_.toLongOption)
    } yield u + s
    val rss = status.linesIterator.collectFirst {
      case l if l.startsWith("VmRSS:") => l.drop(6).trim.split("\\s+").headOption.flatMap(_.toLongOption).map(_ * 1024)
    }.flatten
    for (t <- ticks; r <- rss) yield ProcSample(pid, t, r)
  }

  /** CPU use between two samples, in percent of one core (two busy cores: 200). */
  def cpuPercent(before: ProcSample, beforeNanos: Long, after: ProcSample, afterNanos: Long, ticksPerSecond: Long): Option[Double] = {
    val seconds = (afterNanos - beforeNanos) / 1e9
    if (seconds <= 0 || after.cpuTicks < before.cpuTicks) None
    else Some((after.cpuTicks - before.cpuTicks).toDouble / ticksPerSecond / seconds * 100)
  }

  /** Names that tell the watched processes apart: two of one kind (three brokers, two handlers) are each named with their
    * pid, or the table, the JSON and the chart would show them as one.
    */
  def distinctLabels(targets: List[(Long, String)]): List[(Long, String)] = {
    val repeated = targets.groupBy(_._2).collect { case (label, ts) if ts.size > 1 => label }.toSet
    targets.map { case (pid, label) => pid -> (if (repeated(label)) s"$label $pid" else label) }
  }

  /** A short name for a process of the bank, from its command line (arguments NUL-separated) and `comm`. */
  def label(cmdline: String, comm: String): String = {
    val args = cmdline.split('\u0000').toList
    if (args.contains("bankops.Main") && args.contains("handler")) "handler"
    else if (args.contains("kafka.Kafka")) "kafka"
    else if (args.exists(_.contains("apicurio")) || args.exists(_.contains("quarkus-run.jar"))) "registry"
    else if (comm.startsWith("postgres")) "postgres"
    else comm.trim
  }
}

package bankops.jobs.latency

/** A watched process at one sampling: CPU since the previous sampling (None for the first) and resident memory. */
private[latency] final case class ProcessLoad(label: String, pid: Long, cpuPercent: Option[Double], rssBytes: Long)

/** One sampling during step `step` (from 0): the watched processes and the handler group's lag (None: not known). */
private[latency] final case class Sample(step: Int, processes: List[ProcessLoad], lag: Option[Long])

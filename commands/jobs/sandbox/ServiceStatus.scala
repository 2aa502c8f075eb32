package bankops.jobs.sandbox

/** What `sandbox status` shows per service. */
private[sandbox] final case class ServiceStatus(service: String, up: Boolean, address: String, pid: Option[Long], version: String)

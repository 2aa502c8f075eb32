package bankops.jobs.doctor

/** One step of `bankops doctor`: what was checked, and whether it passed, with why. */
final case class Check(name: String, passed: Boolean, detail: String)

package bankops.jobs.doctor

/** One step of `bankops doctor`: what was checked, and whether it passed, with why. `access`: for a job's access
  * lines, held, missing or unknown; those report what an identity may do and do not make doctor fail (see `--require`).
  */
final case class Check(name: String, passed: Boolean, detail: String, access: Option[Access] = None)

sealed abstract class Access(val name: String)
object Access {
  case object Held extends Access("held")
  case object Missing extends Access("missing")
  /** Neither the ACLs nor a harmless probe could tell. */
  case object Unknown extends Access("unknown")
}

package bankops.services.contracts

/** Where a SCRAM user's password comes from: never the topology itself. */
sealed trait PasswordSource { def describe: String }
object PasswordSource {
  final case class Env(variable: String) extends PasswordSource { def describe = s"environment variable $variable" }
  final case class File(path: os.Path) extends PasswordSource { def describe = s"password file $path" }
}

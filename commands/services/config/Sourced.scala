package bankops.services.config

/** Where a setting's value came from, in precedence order. */
sealed abstract class Source(val describe: String)
object Source {
  final case class Flag(name: String) extends Source(s"flag --$name")
  final case class Env(name: String) extends Source(s"env $name")
  final case class Context(name: String) extends Source(s"context $name")
  final case class File(path: os.Path) extends Source(s"file $path")
  case object Sandbox extends Source("sandbox")
  case object Default extends Source("default")
}

final case class Sourced[A](value: A, source: Source)

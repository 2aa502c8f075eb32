package bankops.services.load

/** What a load sends: heartbeats, bank commands, or both in turn. */
sealed abstract class LoadKind(val name: String)

object LoadKind {
  case object Heartbeats extends LoadKind("heartbeat")
  case object Commands extends LoadKind("commands")
  case object Mixed extends LoadKind("mixed")
  val all: List[LoadKind] = List(Heartbeats, Commands, Mixed)

  def parse(s: String): Either[String, LoadKind] =
    all.find(_.name == s).toRight(s"must be heartbeat, commands or mixed, not '$s'")
}

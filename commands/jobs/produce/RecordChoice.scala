package bankops.jobs.produce

import bankops.services.contracts.{RecordKey, Topology}

/** The record type of the values sent to a topic: `--record` (a simple or full name), else the topology's only type for
  * the topic; with its key as the topology declares it, when the topic is declared.
  */
private[produce] final case class RecordChoice(fullName: String, key: Option[RecordKey])

private[produce] object RecordChoice {
  def choose(topology: Topology, topic: String, record: Option[String]): Either[String, RecordChoice] = {
    val declared = topology.topic(topic).map(_.records).getOrElse(Nil)
    def names(all: Iterable[String]) = all.toList.sorted.map(n => if (all.count(m => simple(m) == simple(n)) == 1) simple(n) else n).mkString(", ")
    val where = topology.file.toString
    record match {
      case Some(r) =>
        val candidates = if (declared.nonEmpty) declared.map(_.fullName) else topology.schemaFiles.keys.toList
        candidates.filter(n => n == r || simple(n) == r).distinct match {
          case List(n) => Right(RecordChoice(n, declared.find(_.fullName == n).map(_.key)))
          case Nil if declared.nonEmpty => Left(s"--record $r: topic $topic carries ${names(candidates)} ($where), not $r")
          // A topic the topology does not declare takes any record the registry knows by its full name.
          case Nil if r.contains('.') => Right(RecordChoice(r, None))
          case Nil => Left(s"--record $r: no such record type next to $where (known: ${names(candidates)}); give a full name")
          case several => Left(s"--record $r is ambiguous: ${several.sorted.mkString(", ")}")
        }
      case None => declared match {
          case List(only) => Right(RecordChoice(only.fullName, Some(only.key)))
          case Nil if topology.topic(topic).isDefined => Left(s"topic $topic declares no record type in $where: name one with --record")
          case Nil => Left(s"topic $topic is not in $where: name its record type with --record (one of ${names(topology.schemaFiles.keys)})")
          case several => Left(s"topic $topic carries several record types: choose one with --record (${names(several.map(_.fullName))})")
        }
    }
  }

  private def simple(fullName: String): String = fullName.substring(fullName.lastIndexOf('.') + 1)
}

package bankops.services.contracts

/** Pure: the subjects a topology asks for, imported types' subjects first. */
object DesiredSubjects {

  /** Types imported from another file are registered under that file's record full name, as Confluent's tools do. */
  def of(topology: Topology, strategy: SubjectNameStrategy, all: Map[String, SchemaFile]): Either[String, List[DesiredSubject]] = {
    val definedIn: Map[String, SchemaFile] = all.values.toList.flatMap(f =>
      bankops.services.avro.NamedTypes.of(f.schema).filterNot(s =>
        f.imports.contains(s.getFullName)).map(_.getFullName -> f)).toMap
    def deps(f: SchemaFile): List[SchemaFile] = f.imports.flatMap(definedIn.get).distinct

    def withDeps(f: SchemaFile, seen: Set[String]): List[SchemaFile] =
      deps(f).filterNot(d => seen(d.fullName)).flatMap(d => withDeps(d, seen + f.fullName)) :+ f

    val bySubject = topology.bindings.groupBy { case (t, r) => strategy.subject(t.name, r.fullName) }
    val clash = forTopicsOrder(topology, strategy).map(s => s -> bySubject(s)).collectFirst {
      case (subject, bs) if bs.map(_._2.fullName).distinct.size > 1 =>
        s"subject $subject would hold ${bs.map(_._2.fullName).distinct.mkString(" and ")}: ${strategy.name} allows one record type per subject"
    }
    val forTopics = topology.bindings.map { case (t, r) => (strategy.subject(t.name, r.fullName), r.schema, t.name) }
      .groupBy(_._1).toList.map { case (subject, xs) => (subject, xs.head._2, xs.map(_._3).distinct) }
      .sortBy { case (subject, _, _) => forTopicsOrder(topology, strategy).indexOf(subject) }
    val referenced = forTopics.flatMap { case (_, f, _) => withDeps(f, Set.empty).init }.distinct
      .filterNot(f => forTopics.exists(_._1 == f.fullName))
    clash.toLeft((referenced.map(f => DesiredSubject(f.fullName, f, Nil, deps(f).map(_.fullName))) ++
        forTopics.map { case (s, f, topics) => DesiredSubject(s, f, topics, deps(f).map(_.fullName)) }).distinctBy(_.subject))
  }

  /** For commands: the topology's subjects under its strategy or `strategy`; a clash is bad input (exit 2). */
  def load(topology: Topology, strategy: Option[SubjectNameStrategy]): cats.effect.IO[List[DesiredSubject]] =
    cats.effect.IO.fromEither(of(topology, strategy.getOrElse(topology.subjectNameStrategy), topology.schemaFiles)
        .left.map(e => bankops.base.Failure.BadInput(s"${topology.file}: $e")))

  private def forTopicsOrder(topology: Topology, strategy: SubjectNameStrategy): List[String] =
    topology.bindings.map { case (t, r) => strategy.subject(t.name, r.fullName) }.distinct
}

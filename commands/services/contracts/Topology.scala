package bankops.services.contracts

/** The declared topics, the subject naming of their records and every `.avsc` next to the file, and who may do what:
  * the one model topics, schemas, ACLs and SCRAM users plan from. `access`/`users` absent (None) means bankops does
  * not manage ACLs/users on this cluster at all; present but empty means it manages them and wants none.
  */
final case class Topology(file: os.Path, subjectNameStrategy: SubjectNameStrategy, topics: List[TopicSpec], schemaFiles: Map[String, SchemaFile],
                          environments: Map[String, TopologyEnvironment] = Map.empty, environment: Option[TopologyEnvironment] = None,
                          access: Option[List[Access]] = None, users: Option[List[ScramUser]] = None) {

  /** The topics as the named environment declares them; an unknown name is an error naming the declared ones. */
  def in(name: String): Either[String, Topology] =
    environments.get(name).toRight {
      val known = if (environments.isEmpty) "it declares none" else s"declared: ${environments.keys.toList.sorted.mkString(", ")}"
      s"$file: no environment '$name' ($known)"
    }.map(e => copy(topics = topics.map(e.applyTo), environment = Some(e)))

  def topic(name: String): Option[TopicSpec] = topics.find(_.name == name)
  def names: Set[String] = topics.map(_.name).toSet

  /** Every (topic, record) pair, in declaration order. */
  def bindings: List[(TopicSpec, TopicRecord)] = topics.flatMap(t => t.records.map(t -> _))
}

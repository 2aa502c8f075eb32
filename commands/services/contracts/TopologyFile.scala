package bankops.services.contracts

import cats.syntax.all._
import io.circe.{Json, JsonObject}

import bankops.base.JsonInput

import JsonFields._

/** Reads and validates a topology file. Every error names the file, the path inside it and the problem:
  * `schemas/topology.json: topics.commands.partitions: must be at least 1, got 0`.
  *
  * {{{
  * { "subjectNameStrategy": "TopicRecordNameStrategy",
  *   "topics": { "heartbeat": { "partitions": 1, "replicationFactor": 3, "config": { "retention.ms": "15m" },
  *                              "records": [ { "type": "nl.openweb.data.Heartbeat", "key": "time" } ] } } }
  * }}}
  * Record types are found among the `.avsc` files of the topology's directory; `access` and `users` are read by [[AccessFile]].
  */
object TopologyFile {
  def load(file: os.Path): R[Topology] =
    for {
      text <- bankops.base.TextFile.read(file, "topology file")
      json <- JsonInput.parse(text).left.map(e => s"$file: $e")
      schemas <- SchemaFiles.load(file / os.up)
      topology <- fromJson(file, json, schemas).left.map(e => s"$file: $e")
    } yield topology

  /** Pure: the model from parsed JSON and the schemas it may name. */
  def fromJson(file: os.Path, json: Json, schemas: Map[String, SchemaFile]): R[Topology] =
    for {
      root <- obj("", json, Set("subjectNameStrategy", "topics", "environments", "access", "users"), Set("topics"))
      strategy <- root("subjectNameStrategy").traverse(str("subjectNameStrategy", _).flatMap(s =>
          SubjectNameStrategy.parse(s).left.map(e => s"subjectNameStrategy: $e")))
      topicsJson <- obj("topics", root("topics").get, Set.empty, Set.empty, anyKey = true)
      topics <- topicsJson.toList.traverse { case (name, t) => topic(s"topics.$name", name, t, schemas) }
      _ <- if (topics.isEmpty) Left("topics: declares no topic") else Right(())
      environments <- root("environments").fold[R[Map[String, TopologyEnvironment]]](Right(Map.empty))(
        obj("environments", _, Set.empty, Set.empty, anyKey = true).flatMap(_.toList.traverse { case (name, e) =>
          environment(s"environments.$name", name, e, topics.map(_.name).toSet)
        }).map(_.map(e => e.name -> e).toMap))
      access <- root("access").traverse(AccessFile.access(_, topics.map(_.name).toSet))
      users <- root("users").traverse(AccessFile.users(_, file / os.up))
    } yield Topology(file, strategy.getOrElse(SubjectNameStrategy.TopicRecord), topics, schemas, environments, access = access, users = users)

  private def environment(at: String, name: String, json: Json, declared: Set[String]): R[TopologyEnvironment] =
    for {
      o <- obj(at, json, OverrideKeys + "topics", Set.empty)
      all <- topicOverride(at, o)
      topicsJson <- o("topics").fold[R[JsonObject]](Right(JsonObject.empty))(obj(s"$at.topics", _, Set.empty, Set.empty, anyKey = true))
      topics <- topicsJson.toList.traverse { case (t, tj) =>
        val tat = s"$at.topics.$t"
        if (!declared(t)) Left(s"$tat: the topology declares no topic '$t'")
        else obj(tat, tj, OverrideKeys, Set.empty).flatMap(topicOverride(tat, _)).map(t -> _)
      }
    } yield TopologyEnvironment(name, all, topics.toMap)

  private val OverrideKeys = Set("partitions", "replicationFactor", "config")

  private def topicOverride(at: String, o: JsonObject): R[TopicOverride] =
    for {
      partitions <- o("partitions").traverse(int(s"$at.partitions", _).flatMap(atLeastOne(s"$at.partitions", _)))
      rf <- o("replicationFactor").traverse(int(s"$at.replicationFactor", _).flatMap(atLeastOne(s"$at.replicationFactor", _)))
      config <- o("config").fold[R[Map[String, String]]](Right(Map.empty))(config(s"$at.config", _))
    } yield TopicOverride(partitions, rf, config)

  private val legalName = "[a-zA-Z0-9._-]{1,249}".r

  private def topic(at: String, name: String, json: Json, schemas: Map[String, SchemaFile]): R[TopicSpec] =
    for {
      _ <- name match {
        case "." | ".." => Left(s"$at: '$name' is not a legal topic name")
        case n if n.startsWith("_") => Left(s"$at: names starting with '_' belong to internal topics, which bankops never touches")
        case legalName() => Right(())
        case _ => Left(s"$at: '$name' is not a legal topic name (letters, digits, '.', '_', '-'; at most 249)")
      }
      o <- obj(at, json, Set("partitions", "replicationFactor", "config", "records"), Set("partitions", "replicationFactor", "records"))
      partitions <- int(s"$at.partitions", o("partitions").get).flatMap(atLeastOne(s"$at.partitions", _))
      rf <- int(s"$at.replicationFactor", o("replicationFactor").get).flatMap(atLeastOne(s"$at.replicationFactor", _))
      config <- o("config").fold[R[Map[String, String]]](Right(Map.empty))(config(s"$at.config", _))
      recordsJson <- o("records").get.asArray.toRight(s"$at.records: must be a list")
      records <- recordsJson.toList.zipWithIndex.traverse { case (r, i) => record(s"$at.records[$i]", r, schemas) }
      _ <- records.groupBy(_.fullName).collectFirst { case (n, rs) if rs.size > 1 => s"$at.records: $n is listed twice" }.toLeft(())
    } yield TopicSpec(name, partitions, rf, config, records)

  private def record(at: String, json: Json, schemas: Map[String, SchemaFile]): R[TopicRecord] =
    for {
      o <- obj(at, json, Set("type", "key"), Set("type", "key"))
      name <- str(s"$at.type", o("type").get)
      schema <- schemas.get(name).toRight(
        s"$at.type: no .avsc file defines record $name (known: ${schemas.keys.toList.sorted.mkString(", ")})")
      keyName <- str(s"$at.key", o("key").get)
      key <- keyName match {
        case "time" => Right(RecordKey.Time)
        case f if schema.schema.getField(f) != null => Right(RecordKey.Field(f))
        case f => Left(s"$at.key: $name has no field '$f' (key by a field, or 'time')")
      }
    } yield TopicRecord(schema, key)

  private def config(at: String, json: Json): R[Map[String, String]] =
    obj(at, json, Set.empty, Set.empty, anyKey = true).flatMap(_.toList.traverse { case (k, v) =>
      val raw = v.asString.orElse(v.asNumber.map(_.toString)).orElse(v.asBoolean.map(_.toString))
      raw.toRight(s"$at.$k: must be a string, number or boolean")
        .flatMap(r => ConfigValues.canonical(k, r).left.map(e => s"$at.$k: $e"))
        .map(k -> _)
    }).map(_.toMap)

  private def atLeastOne(at: String, n: Int): R[Int] = if (n >= 1) Right(n) else Left(s"$at: must be at least 1, got $n")
}

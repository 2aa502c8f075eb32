package bankops.support

/** Topology files for tests: the repository's `.avsc` contracts next to a topology of the test's own. */
object TopologyFixture {
  val schemas: os.Path = Repo.root / "schemas"

  /** A fresh directory holding the eight `.avsc` files and `topology.json` with `json` as its text. */
  def write(json: String): os.Path = {
    val dir = os.temp.dir(prefix = "topology")
    os.list(schemas).filter(_.ext == "avsc").foreach(f => os.copy(f, dir / f.last))
    os.write(dir / "topology.json", json)
    dir / "topology.json"
  }

  /** A unique prefix so each test's topics cannot meet another test's. */
  def unique(name: String): String = s"t${java.util.UUID.randomUUID().toString.take(8)}-$name"

  /** One topic per entry: name -> (partitions, config, record type simple name, key). */
  def topology(topics: (String, Int, Map[String, String], String, String)*): String =
    topics.map { case (name, partitions, config, record, key) =>
      val cfg = config.map { case (k, v) => s""""$k": "$v"""" }.mkString(", ")
      s""""$name": {"partitions": $partitions, "replicationFactor": 3, "config": {$cfg},
         |  "records": [{"type": "nl.openweb.data.$record", "key": "$key"}]}""".stripMargin
    }.mkString("""{"topics": {""", ",\n", "}}")
}

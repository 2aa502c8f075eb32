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

  /** A unique prefix so each test's topics cannot meet another test's; removed when its suite ends (Leftovers). */
  def unique(name: String): String = {
    val prefix = s"t${java.util.UUID.randomUUID().toString.take(8)}-$name"
    Leftovers.madePrefix(prefix)
    prefix
  }

  /** One topic per entry: name -> (partitions, config, record type simple name, key). */
  def topology(topics: (String, Int, Map[String, String], String, String)*): String =
    topics.map { case (name, partitions, config, record, key) =>
      val cfg = config.map { case (k, v) => s""""$k": "$v"""" }.mkString(", ")
      s""""$name": {"partitions": $partitions, "replicationFactor": 3, "config": {$cfg},
         |  "records": [{"type": "nl.openweb.data.$record", "key": "$key"}]}""".stripMargin
    }.mkString("""{"topics": {""", ",\n", "}}")

  /** Heartbeat on `hb` (v1), then v2: that topic plus `other` (name, partitions, record simple name, keyed by id),
    * with Heartbeat.avsc given a field without a default, so v2's Heartbeat cannot read data written with v1's.
    */
  def incompatibleHeartbeat(hb: String, other: (String, Int, String)): (os.Path, os.Path) = {
    val v1 = write(topology((hb, 1, Map.empty, "Heartbeat", "time")))
    val v2 = write(topology((hb, 1, Map.empty, "Heartbeat", "time"), (other._1, other._2, Map.empty, other._3, "id")))
    os.write.over(v2 / os.up / "Heartbeat.avsc",
      """{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data","fields":[{"name":"beat","type":"long"},{"name":"node","type":"string"}]}""")
    (v1, v2)
  }
}

package bankops.support

/** Topology files for tests: the repository's `.avsc` contracts next to a topology of the test's own. Files only: a
  * suite that uses nothing else reaches no service and runs in the quick tier.
  */
object TopologyFiles {
  val schemas: os.Path = Repo.root / "schemas"

  /** A fresh directory holding the eight `.avsc` files and `topology.json` with `json` as its text. */
  def write(json: String): os.Path = {
    val dir = os.temp.dir(prefix = "topology")
    os.list(schemas).filter(_.ext == "avsc").foreach(f => os.copy(f, dir / f.last))
    os.write(dir / "topology.json", json)
    dir / "topology.json"
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

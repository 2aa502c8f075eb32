package bankops.jobs.replay

import cats.effect.IO

import bankops.support.{SandboxFixture, TopologyFiles}

/** Topics of bank commands (both command records, keyed by id, 3 partitions) for the replay suites. */
object CommandTopics {
  def topology(topics: String*): os.Path = TopologyFiles.write(topics.map { t =>
    s""""$t": {"partitions": 3, "replicationFactor": 1, "records": [
       |{"type": "nl.openweb.data.ConfirmAccountCreation", "key": "id"}, {"type": "nl.openweb.data.ConfirmMoneyTransfer", "key": "id"}]}""".stripMargin
  }.mkString("""{"topics": {""", ",", "}}"))

  /** Creates the topics and registers their subjects; fails the test when apply does not exit 0. */
  def apply(topics: String*): IO[os.Path] = {
    val file = topology(topics: _*)
    SandboxFixture.cli("apply", "--topology", file.toString).flatMap(r => IO(munit.Assertions.assertEquals(r.code, 0, r.err))).as(file)
  }
}

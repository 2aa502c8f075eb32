package bankops.jobs.produce

import cats.effect.IO
import cats.syntax.all._
import io.circe.Json
import io.circe.parser.parse

import scala.concurrent.duration._

import bankops.support.{CliProcess, IOSuite, PythonClients, Repo, SandboxFixture, Setup, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

/** `bankops produce` against the sandbox, checked with confluent-kafka for Python and with `inspect`. */
class ProduceSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private val commands = TopologyFixture.unique("produce-commands")
  private val beats = TopologyFixture.unique("produce-beats")
  private val topology = TopologyFiles.write(
    s"""{"topics": {"$commands": {"partitions": 3, "replicationFactor": 1, "records": [
       |  {"type": "nl.openweb.data.ConfirmAccountCreation", "key": "id"}, {"type": "nl.openweb.data.ConfirmMoneyTransfer", "key": "id"}]},
       |"$beats": {"partitions": 1, "replicationFactor": 1, "records": [{"type": "nl.openweb.data.Heartbeat", "key": "time"}]}}}""".stripMargin)
  // Both topics are made once, for every test that uses them.
  private lazy val applied: Unit =
    Setup.cli("apply the test topology", "apply", "--topology", topology.toString).void.unsafeRunSync()(IOSuite.runtime)
  private val applyOnce = IO.blocking(applied)

  private def produce(stdin: String, args: String*): IO[TestShell.Result] =
    applyOnce >> SandboxFixture.connection >>
      TestShell.run(List("produce", "--topology", topology.toString, "-o", "json") ++ args, SandboxFixture.env, Repo.root, stdin)

  private def ends(topic: String): IO[Long] = SandboxFixture.written(topic)

  /** The record confluent-kafka read at a partition and offset. */
  private def at(python: List[Json], partition: Int, offset: Long): Option[Json] =
    python.find(j => j.hcursor.get[Int]("partition") == Right(partition) && j.hcursor.get[Long]("offset") == Right(offset))

  private def json(line: String): io.circe.ACursor = parse(line).fold(throw _, identity).hcursor

  private val transfer =
    """{"id":"6f1c2d3e-0000-4000-8000-00000000aaaa","token":"12345678901234567890","amount":-42,"from":"cash",""" +
      """"to":"NL66OPEN0000000000","description":"café \"quoted\" ☺"}"""

  test("one record: confluent-kafka decodes exactly the record sent (type, fields, key, headers) where produce said it landed") {
    val topic = TopologyFixture.unique("produce-one")
    val file = TopologyFiles.write(
      s"""{"topics": {"$topic": {"partitions": 3, "replicationFactor": 1, "records": [
         |{"type": "nl.openweb.data.ConfirmAccountCreation", "key": "id"},
         |{"type": "nl.openweb.data.ConfirmMoneyTransfer", "key": "id"}]}}}""".stripMargin)
    for {
      _ <- Setup.cli("apply", "apply", "--topology", file.toString)
      r <- SandboxFixture.cli("produce", "--topology", file.toString, "--topic", topic, "--record", "ConfirmMoneyTransfer", "--value", transfer,
        "--key", "my-key", "--header", "trace=abc=1", "--header", "who=ops", "--partition", "2", "-o", "json")
      python <- PythonClients.consume(topic)
    } yield {
      assertEquals(r.code, 0, r.err)
      val ack = json(r.out.trim)
      assertEquals(ack.get[Int]("partition"), Right(2))
      assertEquals(ack.get[Long]("offset"), Right(0L))
      assertEquals(python.size, 1, python.toString)
      val got = python.head.hcursor
      assertEquals(got.get[Int]("partition"), Right(2))
      assertEquals(got.get[String]("key"), Right("my-key"))
      assertEquals(got.get[String]("record"), Right("nl.openweb.data.ConfirmMoneyTransfer"))
      assertEquals(got.get[Int]("schemaId"), ack.get[Int]("schemaId"))
      assertEquals(got.get[Json]("headers"),
        Right(Json.arr(Json.arr(Json.fromString("trace"), Json.fromString("abc=1")),
            Json.arr(Json.fromString("who"), Json.fromString("ops")))))
      assertEquals(got.get[Json]("value").toOption.flatMap(_.asObject).map(_.toMap), parse(transfer).toOption.flatMap(_.asObject).map(_.toMap))
    }
  }

  test("stdin lines: each acknowledged in order; a command without an id gets a fresh one (said on stderr), which is its key") {
    val lines = List("""{"a_type":"AUTO"}""", "", """{"id":"6f1c2d3e-0000-4000-8000-00000000bbbb","a_type":"MANUAL"}""")
    for {
      r <- produce(lines.mkString("\n") + "\n", "--topic", commands, "--record", "ConfirmAccountCreation")
      python <- PythonClients.consume(commands)
    } yield {
      assertEquals(r.code, 0, r.err)
      assertEquals(r.outLines.size, 2, r.out)
      val fresh = """stdin:1: no id given, so it has the fresh id ([0-9a-f-]{36})""".r.findFirstMatchIn(r.err).map(_.group(1))
      assert(fresh.isDefined, r.err)
      assertEquals(r.outLines.map(json(_).get[String]("source").toOption.get), List("stdin:1", "stdin:3"))
      val sent = r.outLines.map(json).map(c => (c.get[Int]("partition").toOption.get, c.get[Long]("offset").toOption.get))
      val found = sent.map { case (p, o) => at(python, p, o) }
      assertEquals(found.map(_.flatMap(_.hcursor.get[String]("key").toOption)), List(fresh, Some("6f1c2d3e-0000-4000-8000-00000000bbbb")))
      assertEquals(found.map(_.flatMap(_.hcursor.downField("value").get[String]("a_type").toOption)), List(Some("AUTO"), Some("MANUAL")))
    }
  }

  test("inspect's JSON output, produced back, gives byte-identical values") {
    val topic = TopologyFixture.unique("produce-back")
    val file = TopologyFiles.write(TopologyFiles.topology((topic, 1, Map.empty, "ConfirmMoneyTransfer", "id")))
    val values = List(transfer, transfer.replace("aaaa", "cccc").replace("-42", "9223372036854775807").replace("cash", "tab\\there"))
    val files = os.temp.dir()
    for {
      _ <- Setup.cli("apply", "apply", "--topology", file.toString)
      first <- SandboxFixture.connection >> TestShell.run(List("produce", "--topology", file.toString, "--topic", topic), SandboxFixture.env,
        Repo.root, values.mkString("\n"))
      inspected <- SandboxFixture.cli("inspect", "--topic", topic, "-o", "json")
      back <- TestShell.run(List("produce", "--topology", file.toString, "--topic", topic), SandboxFixture.env, Repo.root,
        inspected.outLines.map(l => json(l).downField("value").focus.get.noSpaces).mkString("\n"))
      _ <- SandboxFixture.cli("replay", "--from-topic", topic, "--to-file", (files / "all.jsonl").toString)
    } yield {
      assertEquals(first.code, 0, first.err)
      assertEquals(back.code, 0, back.err)
      val raw = os.read.lines(files / "all.jsonl").map(l => json(l).get[String]("raw").toOption.get).toList
      assertEquals(raw.size, 4)
      assertEquals(raw.drop(2), raw.take(2))
    }
  }

  test("invalid values, unknown record types and fields, a tombstone without a key, a missing subject: exit 2 naming it, nothing sent") {
    val cases = List(
      List("--topic", commands, "--record", "ConfirmMoneyTransfer", "--value", transfer.replace("-42", "\"x\"")) ->
        """amount: expected a long, got "x"""",
      List("--topic", commands, "--record", "ConfirmMoneyTransfer", "--value", transfer.replace("}", ""","colour":"red"}""")) ->
        "colour: nl.openweb.data.ConfirmMoneyTransfer has no such field",
      List("--topic", commands, "--record", "Heartbeat", "--value", """{"beat":1}""") -> "carries ConfirmAccountCreation, ConfirmMoneyTransfer",
      List("--topic", commands, "--value", """{"a_type":"AUTO"}""") -> "several record types",
      List("--topic", commands, "--tombstone") -> "--tombstone needs --key",
      List("--topic", beats, "--subject-strategy", "TopicNameStrategy", "--value", """{"beat":1}""") -> s"subject $beats-value does not exist",
      List("--topic", beats, "--schema-version", "99", "--value", """{"beat":1}""") -> s"subject $beats-nl.openweb.data.Heartbeat has no version 99",
      List("--topic", beats, "--partition", "1", "--value", """{"beat":1}""") -> s"--partition 1: topic $beats has 1 partition(s)",
      List("--topic", beats, "--value", "{beat: 1}") -> "--value: not JSON",
      // Past the producer's max.request.size (1 MiB).
      List("--topic", commands, "--record", "ConfirmMoneyTransfer", "--value", transfer.replace("café", "x" * 2000000)) ->
        "--value: Kafka refused the record",
      List("--topic", beats, "--value", "@/nonexistent/value.json") -> "no such file"
    )
    for {
      _ <- applyOnce
      before <- (ends(commands), ends(beats)).tupled
      results <- cases.traverse { case (args, _) => produce("", args: _*) }
      after <- (ends(commands), ends(beats)).tupled
    } yield {
      cases.zip(results).foreach { case ((args, fragment), r) =>
        assertEquals(r.code, 2, s"${args.mkString(" ")}\n${r.err}")
        assert(r.err.contains(fragment), s"${args.mkString(" ")}: no '$fragment' in\n${r.err}")
        assertEquals(r.err.linesIterator.count(_.nonEmpty), 1, r.err)
      }
      assertEquals(after, before, "nothing was sent")
    }
  }

  test("stdin: a bad line stops the run with its line number and exit 2; the lines before it were sent, none after") {
    val lines = List("""{"beat":1}""", """{"beat":2}""", """{"beat":"three"}""", """{"beat":4}""")
    for {
      before <- ends(beats)
      r <- produce(lines.mkString("\n"), "--topic", beats)
      after <- ends(beats)
    } yield {
      assertEquals(r.code, 2, r.err)
      assert(r.err.contains("""stdin:3: beat: expected a long, got "three"; the 2 record(s) before it were sent, nothing after it"""), r.err)
      assertEquals(after - before, 2L)
      assertEquals(r.outLines.size, 2, r.out)
    }
  }

  test("stdin: a record Kafka refuses mid-stream is named (exit 2); the count it gives is what was reported and what landed") {
    // Enough lines for several chunks in flight before the refused one (past the producer's 1 MiB), and after it.
    def line(i: Int, description: String) = transfer.replace("aaaa", f"$i%04d").replace("café", description)
    val lines = (1 to 3000).map(i => line(i, if (i == 2500) "x" * 2000000 else s"d$i"))
    for {
      before <- applyOnce >> ends(commands)
      r <- produce(lines.mkString("\n"), "--topic", commands, "--record", "ConfirmMoneyTransfer")
      after <- ends(commands)
    } yield {
      assertEquals(r.code, 2, r.err)
      val said = """stdin:2500: Kafka refused the record: .*; (\d+) record\(s\) in all were acknowledged""".r
      val count = said.findFirstMatchIn(r.err).map(_.group(1).toLong).getOrElse(fail(r.err))
      assertEquals(r.err.linesIterator.count(_.nonEmpty), 1, r.err)
      // Every one before it was taken; each acknowledged one was reported, in order per partition, and is on the topic.
      assert(count >= 2499, r.err)
      assertEquals(r.outLines.size.toLong, count)
      assertEquals(after - before, count)
      val acks = r.outLines.map(l => json(l)).map(c => (c.get[Int]("partition").toOption.get, c.get[Long]("offset").toOption.get))
      acks.groupBy(_._1).values.foreach(offsets => assertEquals(offsets.map(_._2), offsets.map(_._2).sorted))
    }
  }

  test("--dry-run shows the encoded record and sends nothing; a tombstone with a key is sent as a null value") {
    for {
      before <- ends(commands)
      dry <- produce("", "--topic", commands, "--record", "ConfirmMoneyTransfer", "--value", transfer, "--dry-run", "--header", "a=b")
      after <- ends(commands)
      tomb <- produce("", "--topic", commands, "--tombstone", "--key", "gone")
      python <- PythonClients.consume(commands)
    } yield {
      assertEquals(dry.code, 0, dry.err)
      assertEquals(after, before)
      val shown = json(dry.out.trim)
      assertEquals(shown.get[String]("subject"), Right(s"$commands-nl.openweb.data.ConfirmMoneyTransfer"))
      assertEquals(shown.get[String]("key"), Right("6f1c2d3e-0000-4000-8000-00000000aaaa"))
      val hex = shown.get[String]("valueHex").toOption.get
      assertEquals(hex.take(10), f"00${shown.get[Int]("schemaId").toOption.get}%08x")
      assertEquals(tomb.code, 0, tomb.err)
      val ack = json(tomb.out.trim)
      val landed = at(python, ack.get[Int]("partition").toOption.get, ack.get[Long]("offset").toOption.get)
      assertEquals(landed.map(_.hcursor.get[String]("key")), Some(Right("gone")))
      assertEquals(landed.map(_.hcursor.get[Json]("value")), Some(Right(Json.Null)))
    }
  }

  test("Ctrl-C while reading stdin: what was acknowledged is reported, exit 130") {
    for {
      _ <- applyOnce
      p <- CliProcess.start("produce", "--topology", topology.toString, "--topic", beats, "-o", "json")
      _ <- IO.blocking { p.process.stdin.write("{\"beat\":1}\n{\"beat\":2}\n"); p.process.stdin.flush() }
      _ <- p.await(60.seconds, "two acknowledgements")(IO.blocking(os.read.lines(p.out).count(_.contains("offset")) >= 2))
      code <- p.interrupt
    } yield {
      val err = os.read(p.err)
      assertEquals(code, 130, err)
      assert(err.contains("interrupted (Ctrl-C): 2 record(s) acknowledged"), err)
    }
  }
}

package bankops.jobs.inspect

import cats.effect.IO
import io.circe.Json
import io.circe.parser.parse

import java.time.Instant
import java.time.temporal.ChronoUnit
import scala.concurrent.duration._

import bankops.support.{CliProcess, IOSuite, PythonClients, SandboxFixture, Setup, TestShell, TopologyFiles, TopologyFixture}
import bankops.support.OnSandbox

class InspectSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private val topic = TopologyFixture.unique("commands")
  // Fixed when the records are made, after the sandbox is up: `ago:25m` has a minute to spare between records 2
  // and 3, and starting the sandbox first (on a busy machine) can take longer than that.
  private lazy val base = Instant.now().minus(30, ChronoUnit.MINUTES).truncatedTo(ChronoUnit.MILLIS)
  private def ts(i: Int) = base.plus(2L * i, ChronoUnit.MINUTES)

  private val ids = (0 to 5).map(i => s"6f1c2d3e-0000-4000-8000-00000000000$i")
  private val values: Map[Int, Json] = Map(
    0 -> Json.obj("id" -> Json.fromString(ids(0)), "a_type" -> Json.fromString("AUTO")),
    1 -> transfer(1, 500, "cash"),
    3 -> transfer(3, 1500, "cash"),
    4 -> Json.obj("id" -> Json.fromString(ids(4)), "a_type" -> Json.fromString("MANUAL")),
    5 -> transfer(5, 2500, "NL66OPEN0000000000"))
  private def transfer(i: Int, amount: Long, from: String) = Json.obj("id" -> Json.fromString(ids(i)),
    "token" -> Json.fromString("12345678901234567890"),
    "amount" -> Json.fromLong(amount), "from" -> Json.fromString(from), "to" -> Json.fromString("NL66OPEN0000000000"),
    "description" -> Json.fromString(s"t$i ü"))

  /** One partition, so offsets are 0..5 in produce order; offset 2 is not Avro at all. */
  private def seeded: IO[Unit] = {
    val file = TopologyFiles.write(s"""{"topics": {"$topic": {"partitions": 1, "replicationFactor": 1, "records": [
      {"type": "nl.openweb.data.ConfirmAccountCreation", "key": "id"}, {"type": "nl.openweb.data.ConfirmMoneyTransfer", "key": "id"}]}}}""")
    def lines = (0 to 5).map { i =>
      val common = s""""topic": "$topic", "key": "${ids(i)}", "timestamp": ${ts(i).toEpochMilli}"""
      if (i == 2) s"""{$common, "rawHex": "${"garbage".getBytes.map("%02x".format(_)).mkString}"}"""
      else {
        val record = if (values(i).hcursor.downField("amount").succeeded) "ConfirmMoneyTransfer" else "ConfirmAccountCreation"
        s"""{$common, "record": "$record", "value": ${values(i).noSpaces}, "headers": {"n": "$i"}}"""
      }
    }
    SandboxFixture.cli("apply", "--topology", file.toString).flatMap(r => IO(assertEquals(r.code, 0, r.err))) >> PythonClients.produce(lines)
  }

  // Seeded before the first test, in a turn of its own: a broker stopped meanwhile would refuse the one replica's writes.
  private val once = ResourceSuiteLocalFixture("seeded", cats.effect.Resource.eval(OnSandbox.turns.io(alone = false)(seeded)))

  override def munitFixtures = List(once)

  private def inspect(args: String*): IO[TestShell.Result] = SandboxFixture.cli(("inspect" :: "--topic" :: topic :: args.toList): _*)

  private def offsets(r: TestShell.Result): List[Long] = r.outLines.map(l => parse(l).toOption.get.hcursor.get[Long]("offset").toOption.get)

  test("records from an independent producer come out with exactly the produced values, keys, headers and timestamps") {
    inspect("-o", "json").map { r =>
      assertEquals(r.code, 0, r.err)
      val lines = r.outLines.map(l => parse(l).fold(e => fail(e.message), identity).hcursor)
      assertEquals(lines.size, 6)
      values.foreach { case (i, v) =>
        assertEquals(lines(i).get[Json]("value"), Right(v))
        assertEquals(lines(i).get[String]("key"), Right(ids(i)))
        assertEquals(lines(i).get[String]("timestamp"), Right(ts(i).toString))
        assertEquals(lines(i).downField("headers").downN(0).get[String]("value"), Right(i.toString))
      }
      assertEquals(lines(0).get[String]("record"), Right("nl.openweb.data.ConfirmAccountCreation"))
      assert(r.err.contains("6 read, 6 shown, 1 undecodable"), r.err)
    }
  }

  test("a garbage record between good ones is reported with its reason and raw bytes; the rest still print; --strict exits 1") {
    for {
      r <- inspect("-o", "json")
      strict <- inspect("-o", "json", "--strict")
    } yield {
      val bad = parse(r.outLines(2)).toOption.get.hcursor
      assertEquals(bad.get[String]("error"), Right("first byte is 0x67, not the magic byte 0x00"))
      assertEquals(bad.get[String]("raw").map(java.util.Base64.getDecoder.decode(_).toList), Right("garbage".getBytes.toList))
      assert(bad.downField("value").failed)
      assertEquals(offsets(r), List(0L, 1, 2, 3, 4, 5))
      assertEquals(strict.code, 1)
      assertEquals(offsets(strict), List(0L, 1, 2, 3, 4, 5))
    }
  }

  // `ago` is counted back from when it runs, to midway between offsets 2 and 3 (a fixed 25m had a minute's margin,
  // which a wait for the sandbox used up).
  private def agoToMidway: IO[String] =
    IO.realTimeInstant.map(now => s"ago:${java.time.Duration.between(ts(2).plus(1, ChronoUnit.MINUTES), now).getSeconds}s")

  test("start and stop positions: offsets (inclusive), end, limit, timestamps, ago") {
    for {
      range <- inspect("--from", "offset:3", "--to", "offset:4")
      end <- inspect("--from", "end")
      limit <- inspect("--limit", "2")
      fromTime <- inspect("--from", s"timestamp:${ts(3)}")
      toTime <- inspect("--to", s"timestamp:${ts(2)}")
      ago <- agoToMidway.flatMap(inspect("--from", _))
      agoAll <- IO.realTimeInstant.map(now => s"ago:${java.time.Duration.between(ts(0).minus(1, ChronoUnit.MINUTES), now).getSeconds}s")
        .flatMap(inspect("--from", _))
    } yield {
      assertEquals(offsets(range), List(3L, 4))
      assertEquals(offsets(end), Nil)
      assertEquals(offsets(limit), List(0L, 1))
      assertEquals(offsets(fromTime), List(3L, 4, 5))
      assertEquals(offsets(toTime), List(0L, 1))
      assertEquals(offsets(ago), List(3L, 4, 5))
      assertEquals(offsets(agoAll), List(0L, 1, 2, 3, 4, 5))
    }
  }

  test("filters: record type, key, where (undecodable records always show)") {
    for {
      byType <- inspect("--record", "ConfirmMoneyTransfer")
      byFull <- inspect("--record", "nl.openweb.data.ConfirmAccountCreation")
      byKey <- inspect("--key", ids(3))
      big <- inspect("--where", "amount>1000")
      cash <- inspect("--where", "from=cash", "--where", "amount<=500")
      not <- inspect("--where", "a_type!=AUTO", "--record", "ConfirmAccountCreation")
      fields <- inspect("--fields", "amount", "--key", ids(5))
    } yield {
      assertEquals(offsets(byType), List(1L, 2, 3, 5))
      assertEquals(offsets(byFull), List(0L, 2, 4))
      assertEquals(offsets(byKey), List(3L))
      assertEquals(offsets(big), List(2L, 3, 5))
      assertEquals(offsets(cash), List(1L, 2))
      assertEquals(offsets(not), List(2L, 4))
      assertEquals(parse(fields.outLines.head).toOption.get.hcursor.get[Json]("value"), Right(Json.obj("amount" -> Json.fromLong(2500))))
    }
  }

  test("--header filters on a header's text value (all must match); --fields keeps the fields named, warning of one no record has") {
    for {
      one <- inspect("--header", "n=3", "-o", "json")
      both <- inspect("--header", "n=3", "--header", "n=4", "-o", "json")
      other <- inspect("--header", "m=3", "-o", "json")
      fields <- inspect("--fields", "amount,from,nosuch", "--key", ids(5), "-o", "json")
    } yield {
      assertEquals(offsets(one), List(3L))
      assert(one.err.contains("6 read, 1 shown"), one.err)
      assertEquals(offsets(both), Nil)
      assertEquals(offsets(other), Nil)
      assertEquals(parse(fields.outLines.head).toOption.get.hcursor.get[Json]("value"),
        Right(Json.obj("amount" -> Json.fromLong(2500), "from" -> Json.fromString("NL66OPEN0000000000"))))
      assert(fields.err.contains("--fields: no record read has a field 'nosuch'"), fields.err)
    }
  }

  test("--key reads only the partition Kafka's default partitioner gives the key, and finds what a scan of all partitions finds") {
    val keyed = TopologyFixture.unique("keyed")
    val topology = TopologyFiles.write(TopologyFiles.topology((keyed, 6, Map.empty, "ConfirmAccountCreation", "id")))
    // Sent by bankops replay, whose Java producer puts each record where Kafka's default partitioner says.
    val data = os.temp((0 until 40).map { i =>
      s"""{"record": "ConfirmAccountCreation", "key": "k${i % 10}", "value": {"id": "${ids(i % 6)}", "a_type": "AUTO"}}"""
    }.mkString("", "\n", "\n"))
    for {
      _ <- Setup.cli("apply the topic and its subjects", "apply", "--topology", topology.toString)
      _ <- Setup.cli("send the records", "replay", "--from-file", data.toString, "--to-topic", keyed)
      full <- SandboxFixture.cli("inspect", "--topic", keyed, "-o", "json")
      one <- SandboxFixture.cli("inspect", "--topic", keyed, "--key", "k3", "-o", "json")
      all <- SandboxFixture.cli("inspect", "--topic", keyed, "--key", "k3", "--all-partitions", "-o", "json")
    } yield {
      val lines = full.outLines.map(l => l -> parse(l).toOption.get.hcursor)
      val k3 = lines.filter(_._2.get[String]("key").contains("k3"))
      val partitions = k3.map(_._2.get[Int]("partition").toOption.get).distinct
      assertEquals(partitions.size, 1, k3.toString)
      val inPartition = lines.count(_._2.get[Int]("partition").toOption == partitions.headOption)
      assert(inPartition < 40, "every key in one partition: the test shows nothing")
      assertEquals(one.code, 0, one.err)
      assertEquals(one.outLines, k3.map(_._1))
      assert(one.err.contains(s"inspect: $inPartition read, 4 shown"), one.err)
      assert(one.err.contains(s"key 'k3' goes to partition ${partitions.head} of $keyed (of 6"), one.err)
      assert(one.err.contains("; 1 partition read"), one.err)
      assertEquals(all.outLines, k3.map(_._1))
      assert(all.err.contains("inspect: 40 read, 4 shown") && all.err.contains("; 6 partitions read"), all.err)
    }
  }

  test("pretty and avro-json output") {
    for {
      pretty <- inspect("-o", "pretty", "--key", ids(1))
      avro <- inspect("-o", "avro-json", "--key", ids(0))
    } yield {
      assert(pretty.out.startsWith(s"$topic/0@1  ${ts(1)}  key ${ids(1)}  nl.openweb.data.ConfirmMoneyTransfer"), pretty.out)
      assert(pretty.out.contains("  amount       500\n"), pretty.out)
      assertEquals(parse(avro.outLines.head).toOption.get.hcursor.downField("value").get[String]("a_type"), Right("AUTO"))
    }
  }

  test("a reader that went away (`| head`): reading stops, the lines it did not take are not counted as shown, exit 141") {
    // Standard output as a pipe whose reader has gone: every write fails, as EPIPE does.
    val gone = new java.io.OutputStream {
      def write(b: Int): Unit = throw new java.io.IOException("Broken pipe")
      override def write(b: Array[Byte], off: Int, len: Int): Unit = throw new java.io.IOException("Broken pipe")
    }
    // Following: unless the failed write stops it, the read goes on until a Ctrl-C that never comes.
    SandboxFixture.cliWritingTo(gone)("inspect", "--topic", topic, "--follow", "-o", "json").timeout(2.minutes).map { r =>
      assertEquals(r.code, 141, r.err)
      assert(r.err.contains("inspect: standard output was closed (its reader went away, or it could not be written): stopped reading"), r.err)
      assert(r.err.contains(" read, 0 shown, "), r.err)
    }
  }

  test("--follow prints records produced after it started, and Ctrl-C exits 0 with the summary") {
    val late = s"""{"topic": "$topic", "key": "late", "record": "ConfirmAccountCreation", "value": {"id": "${ids(0)}", "a_type": "AUTO"}}"""
    for {
      p <- CliProcess.start("inspect", "--topic", topic, "--from", "end", "--follow", "-o", "json")
      // Produced once inspect says it follows: its start positions are fixed by then.
      _ <- p.await(60.seconds, "the line saying it follows")(IO.blocking(os.read(p.err).contains(s"inspect: following $topic (")))
      _ <- PythonClients.produce(List(late))
      _ <- p.await(60.seconds, "the late record")(IO.blocking(os.read(p.out).contains("\"key\":\"late\"")))
      code <- p.interrupt
    } yield {
      val err = os.read(p.err)
      assertEquals(code, 0, err)
      assert(err.contains("1 read, 1 shown"), err)
    }
  }

  test("unknown topic: exit 2 naming it; unreachable broker: exit 3 in bounded time") {
    val started = System.nanoTime()
    for {
      unknown <- SandboxFixture.cli("inspect", "--topic", "no-such-topic-here")
      down <- TestShell.run(List("inspect", "--topic", "x", "--bootstrap-server", "localhost:1", "--timeout", "3"))
    } yield {
      assertEquals(unknown.code, 2)
      assertEquals(unknown.err.trim, "bankops: topic no-such-topic-here does not exist")
      assertEquals(down.code, 3, down.err)
      assert(down.err.contains("localhost:1"), down.err)
      assert((System.nanoTime() - started).nanos < 30.seconds)
    }
  }

  test("a range that ends before it starts is exit 2; a filter nothing read can match gets a warning naming what exists") {
    val topic = TopologyFixture.unique("inspect-warn")
    val topology = TopologyFiles.write(
      s"""{"topics": {"$topic": {"partitions": 1, "replicationFactor": 1, "records": [{"type": "nl.openweb.data.Heartbeat", "key": "time"}]}}}""")
    for {
      backwards <- SandboxFixture.cli("inspect", "--topic", "commands", "--from", "offset:10", "--to", "offset:5")
      applied <- SandboxFixture.cli("apply", "--topology", topology.toString)
      sent <- SandboxFixture.cli("heartbeat", "--topic", topic, "--count", "3", "--rate", "0")
      warned <- SandboxFixture.cli("inspect", "--topic", topic, "--where", "bet>5", "--record", "Hartbeat", "-o", "json")
    } yield {
      assertEquals(backwards.code, 2, backwards.err)
      assert(backwards.err.contains("--to offset:5 is before --from offset:10"), backwards.err)
      assertEquals((applied.code, sent.code), (0, 0), applied.err + sent.err)
      assertEquals(warned.code, 0, warned.err)
      assertEquals(warned.outLines, Nil)
      assert(warned.err.contains("warning: --record Hartbeat: no record of that type among the 3 read (types read: Heartbeat)"), warned.err)
      assert(warned.err.contains("warning: --where: no record read has a field 'bet' (fields: beat)"), warned.err)
    }
  }
}

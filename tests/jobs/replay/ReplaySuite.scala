package bankops.jobs.replay

import cats.effect.{IO, Resource}
import cats.syntax.all._
import io.circe.Json
import io.circe.parser.parse

import java.time.Instant
import java.time.temporal.ChronoUnit
import scala.concurrent.duration._

import bankops.jobs.sandbox.Artifacts
import bankops.services.kafka.{ChunkProducer, KafkaClients}
import bankops.support.{Children, CliProcess, IOSuite, Jvm, PythonClients, SandboxFixture, TestShell, TopologyFixture}
import bankops.support.OnSandbox

class ReplaySuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  import CommandTopics.{apply, topology => commandsTopology}

  private val base = Instant.now().minus(1, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS)
  private def id(i: Int) = f"6f1c2d3e-0000-4000-8000-$i%012d"
  private def transfer(i: Int) = Json.obj("id" -> Json.fromString(id(i)), "token" -> Json.fromString("12345678901234567890"),
    "amount" -> Json.fromLong(100L * i), "from" -> Json.fromString("cash"), "to" -> Json.fromString("NL66OPEN0000000000"),
    // Control characters circe escapes in its own way (\b, \f, U+0085, DEL): a file's lines keep circe's bytes.
    "description" -> Json.fromString(s"r$i ✓" + "\b\f" + 0x85.toChar + 0x7f.toChar))

  /** 30 records from confluent-kafka: transfers and creations, headers, explicit timestamps, one value not in the wire format. */
  private def seed(topic: String): IO[Unit] = PythonClients.produce((0 until 30).map { i =>
    val common = s""""topic": "$topic", "key": "${id(i)}", "timestamp": ${base.plusSeconds(i.toLong).toEpochMilli}, "headers": {"trace": "t$i"}"""
    if (i == 7) s"""{$common, "rawHex": "00ff"}"""
    else if (i % 3 == 0) s"""{$common, "record": "ConfirmAccountCreation", "value": {"id": "${id(i)}", "a_type": "AUTO"}}"""
    else s"""{$common, "record": "ConfirmMoneyTransfer", "value": ${transfer(i).noSpaces}}"""
  })

  /** Every record of a topic: (partition, offset) -> (key, value, headers, timestamp). */
  private def raw(topic: String): IO[Map[(Int, Long), (List[Byte], List[Byte], List[(String, List[Byte])], Long)]] =
    SandboxFixture.records(topic, 30.seconds).map(_.map(r =>
        (r.partition, r.offset) ->
          ((Option(r.key).fold(List.empty[Byte])(_.toList), Option(r.value).fold(List.empty[Byte])(_.toList),
            r.headers.toArray.toList.map(h => h.key -> h.value.toList), r.timestamp))).toMap)

  test("topic to topic on one cluster: keys, values, headers, partitions and timestamps byte-identical; --verify confirms") {
    val (src, dst) = (TopologyFixture.unique("src"), TopologyFixture.unique("dst"))
    for {
      _ <- apply(src, dst)
      _ <- seed(src)
      r <- SandboxFixture.cli("replay", "--from-topic", src, "--to-topic", dst, "--keep-partition", "--keep-timestamps", "--verify")
      a <- raw(src)
      b <- raw(dst)
    } yield {
      assertEquals(r.code, 0, r.err)
      assert(r.err.contains("30 read, 30 acknowledged") && r.err.contains("verified 30 records"), r.err)
      assertEquals(b, a)
    }
  }

  /** A seeded source topic, an empty target and the source replayed to a new file (with `extra` flags). */
  private def sliced(extra: String*): IO[(String, String, os.Path, TestShell.Result)] = {
    val (src, dst) = (TopologyFixture.unique("src"), TopologyFixture.unique("dst"))
    val file = os.temp.dir() / "slice.jsonl"
    apply(src, dst) >> seed(src) >>
      SandboxFixture.cli(List("replay", "--from-topic", src, "--to-file", file.toString) ++ extra: _*).map(out => (src, dst, file, out))
  }

  test("topic to file to topic (--exact) restores every record exactly, the undecodable one included") {
    sliced().flatMap { case (src, dst, file, out) =>
      for {
        back <- SandboxFixture.cli("replay", "--from-file", file.toString, "--to-topic", dst, "--exact", "--keep-partition")
        a <- raw(src)
        b <- raw(dst)
      } yield {
        assertEquals(out.code, 0, out.err)
        val lines = os.read.lines(file).filter(_.nonEmpty).map(l => parse(l).toOption.get.hcursor)
        assertEquals(lines.size, 30)
        assert(lines.forall(l => l.get[String]("raw").isRight && l.get[String]("timestampType").isRight))
        assertEquals(lines.count(_.get[String]("error").isRight), 1)
        val escaped = "\"description\":\"r1 ✓" + List("b", "f", "u0085", "u007f").map("\\" + _).mkString + "\""
        assert(os.read.lines(file).exists(_.contains(escaped)), escaped)
        assertEquals(back.code, 0, back.err)
        assertEquals(b, a)
      }
    }
  }

  test("--rate holds for an --exact file replay too: 10 records at 5/s take about 2 s, not 1") {
    sliced("--limit", "10").flatMap { case (_, dst, file, _) =>
      for {
        timed <- SandboxFixture.cli("replay", "--from-file", file.toString, "--to-topic", dst, "--exact", "--rate", "5").timed
      } yield {
        val (took, r) = timed
        assertEquals(r.code, 0, r.err)
        assert(r.err.contains("10 acknowledged"), r.err)
        // One record every 200 ms: at least nine intervals (before, ten records went at 10/s, whatever the rate below 10).
        assert(took >= 1800.millis, s"took $took")
      }
    }
  }

  test("fixtures to topic: hand-written values become valid Avro; inspect shows the same JSON") {
    val dst = TopologyFixture.unique("dst")
    val file = os.temp(suffix = ".jsonl",
      contents = (1 to 5).map(i =>
        s"""{"record": "ConfirmMoneyTransfer", "key": "${id(i)}", "value": ${transfer(i).noSpaces}}""").mkString("\n") +
        s"""\n{"record": "nl.openweb.data.ConfirmAccountCreation", "key": "${id(9)}", "value": {"id": "${id(9)}", "a_type": "MANUAL"}}\n""")
    for {
      _ <- apply(dst)
      r <- SandboxFixture.cli("replay", "--from-file", file.toString, "--to-topic", dst, "--verify")
      seen <- SandboxFixture.cli("inspect", "--topic", dst, "-o", "json")
    } yield {
      assertEquals(r.code, 0, r.err)
      val values =
        seen.outLines.map(l => parse(l).toOption.get.hcursor).map(c => c.get[String]("key").toOption.get -> c.get[Json]("value").toOption.get).toMap
      (1 to 5).foreach(i => assertEquals(values(id(i)), transfer(i)))
      assertEquals(values(id(9)), Json.obj("id" -> Json.fromString(id(9)), "a_type" -> Json.fromString("MANUAL")))
    }
  }

  // Before the two passes, a 58 MiB file under -Xmx48m died with OutOfMemoryError (GC overhead limit exceeded).
  test("a file larger than the heap replays whole: every line checked, then sent, none held (-Xmx64m, a 78 MiB file)") {
    val dst = TopologyFixture.unique("dst")
    val lines = 32000
    val long = "x" * 2200
    val file = os.temp(suffix = ".jsonl")
    os.write.over(file,
      (1 to lines).iterator.map(i =>
        s"""{"record": "ConfirmMoneyTransfer", "key": "${id(i)}", "value": ${transfer(i).mapObject(_.add("description", Json.fromString(long))).noSpaces}}\n"""))
    for {
      _ <- apply(dst)
      // The producer's buffer scaled to the heap, as an operator would set it for a small one (its 32 MiB default is
      // half of this heap, and on a loaded machine it fills).
      props = os.temp(os.read(SandboxFixture.layout.dir / "client.properties") + "\nbuffer.memory=8388608\n", suffix = ".properties")
      p <- CliProcess.startJvm("-Xmx64m" :: Jvm.DataMover, "replay", "--from-file", file.toString, "--to-topic", dst,
        "--command-config", props.toString)
      code <- p.exited(5.minutes)
      landed <- SandboxFixture.written(dst)
    } yield {
      assert(os.size(file) > 72L * 1024 * 1024, os.size(file))
      assertEquals(code, 0, os.read(p.err))
      assertEquals(landed, lines.toLong)
      os.remove(file)
    }
  }

  test("a bad fixture line: exit 2 naming line and field, nothing sent; --dry-run sends nothing; a missing target topic is exit 2") {
    val dst = TopologyFixture.unique("dst")
    val bad = os.temp(suffix = ".jsonl",
      contents =
        s"""{"record": "ConfirmMoneyTransfer", "key": "a", "value": ${transfer(1).noSpaces}}
         |{"record": "ConfirmMoneyTransfer", "key": "b", "value": ${transfer(2).mapObject(_.add("amount", Json.fromString("lots"))).noSpaces}}
         |""".stripMargin)
    val good = os.temp(suffix = ".jsonl", contents = s"""{"record": "ConfirmMoneyTransfer", "key": "a", "value": ${transfer(1).noSpaces}}""")
    for {
      _ <- apply(dst)
      r <- SandboxFixture.cli("replay", "--from-file", bad.toString, "--to-topic", dst)
      dry <- SandboxFixture.cli("replay", "--from-file", good.toString, "--to-topic", dst, "--dry-run")
      after <- raw(dst)
      missing <- SandboxFixture.cli("replay", "--from-file", good.toString, "--to-topic", "no-such-replay-target")
    } yield {
      assertEquals(r.code, 2)
      assert(r.err.contains(s"$bad:2: value.amount: expected a long"), r.err)
      assert(r.err.contains("nothing was sent"), r.err)
      assertEquals(dry.code, 0, dry.err)
      assert(dry.err.contains("dry run: 1 records read; each line encoded against the target registry's subjects; nothing sent"), dry.err)
      assertEquals(after, Map.empty[(Int, Long), (List[Byte], List[Byte], List[(String, List[Byte])], Long)])
      assertEquals(missing.code, 2)
      assert(missing.err.contains("target topic no-such-replay-target does not exist (--create-topic"), missing.err)
    }
  }

  test("--create-topic creates a missing target as the topology declares it") {
    val dst = TopologyFixture.unique("dst")
    val topology = commandsTopology(dst)
    val good = os.temp(suffix = ".jsonl", contents = s"""{"raw": "AAAAAAE=", "key": "k"}""")
    for {
      r <- SandboxFixture.cli("replay", "--from-file", good.toString, "--to-topic", dst, "--create-topic", "--topology", topology.toString, "--exact")
      after <- raw(dst)
    } yield {
      assertEquals(r.code, 0, r.err)
      assert(r.err.contains(s"created topic $dst"), r.err)
      assertEquals(after.size, 1)
    }
  }

  /** A second registry (Apicurio, in memory) for the cross-registry test, stopped afterwards. */
  private val secondRegistry: Resource[IO, String] = Resource.make(IO.blocking {
    val runner = Artifacts.cacheDir(sys.env) / s"apicurio-registry-${Artifacts.ApicurioVersion}" /
      s"apicurio-registry-app-${Artifacts.ApicurioVersion}-runner.jar"
    // A free port, never a fixed one: a sandbox may run on any (BANKOPS_REGISTRY_PORT).
    val port = {
      val s = new java.net.ServerSocket(0);
      try s.getLocalPort
      finally s.close()
    }
    port ->
      Children.spawn(os.proc("java", bankops.base.JvmOptions.Registry, "-Dquarkus.http.host=127.0.0.1", s"-Dquarkus.http.port=$port", "-jar", runner),
        stdout = os.Path("/dev/null"), stderr = os.Path("/dev/null"))
  })(p => IO.blocking { p._2.destroy(); p._2.waitFor(20000) }.void).evalMap { case (port, _) =>
    val url = s"http://localhost:$port/apis/ccompat/v7"
    bankops.services.registry.RegistryClient.resource(url, Map.empty, None, None, 5.seconds).use { client =>
      (IO.sleep(1.second) >> client.subjects.attempt).iterateUntil(_.isRight).timeout(120.seconds).as(url)
    }
  }

  test("across registries: ids translated on the target, payloads byte-identical, decodable there by confluent-kafka".tag(OnSandbox.Alone)) {
    val (src, dst) = (TopologyFixture.unique("src"), TopologyFixture.unique("dst"))
    secondRegistry.use { url =>
      for {
        _ <- apply(src, dst)
        _ <- seed(src)
        r <- SandboxFixture.cli("replay", "--from-topic", src, "--to-topic", dst, "--keep-partition", "--to-registry-url", url, "--record",
          "ConfirmMoneyTransfer")
        a <- raw(src)
        b <- raw(dst)
        subjects <- bankops.services.registry.RegistryClient.resource(url, Map.empty, None, None, 5.seconds).use(_.subjects)
        python <- SandboxFixture.settings.flatMap(s =>
          IO.blocking(os.proc(PythonClients.python, bankops.support.Repo.root / "tests" / "python" / "avro_consume.py",
              s.kafka.bootstrapServers.value, SandboxFixture.layout.dir / "tls" / "ca.pem", url, dst).call(stderr = os.Pipe, check = false,
              env = PythonClients.env)))
      } yield {
        assertEquals(r.code, 0, r.err)
        assertEquals(subjects, List(s"$dst-nl.openweb.data.ConfirmMoneyTransfer"))
        val sourceValues = a.values.map(_._2).filter(v => v.size > 5 && v.head == 0).toList
        val copied = b.values.map(_._2).toList
        assertEquals(copied.map(_.drop(5)).sortBy(_.mkString),
          sourceValues.filter(v => copied.exists(_.drop(5) == v.drop(5))).map(_.drop(5)).sortBy(_.mkString))
        assertEquals(copied.size, 19)
        assertEquals(python.exitCode, 0, python.err.text())
        assertEquals(python.out.lines().count(_.nonEmpty), 19)
      }
    }
  }

  test("the shipped fixtures are valid for the default topology".tag(OnSandbox.Alone)) {
    for {
      _ <- SandboxFixture.cli("apply")
      r <- SandboxFixture.cli("replay", "--from-file", (bankops.support.Repo.root / "fixtures" / "commands.jsonl").toString, "--to-topic", "commands",
        "--dry-run")
    } yield {
      assertEquals(r.code, 0, r.err)
      assert(r.err.contains("replay: dry run: 300 records read; each line encoded"), r.err)
    }
  }

  test("unknown source topic: exit 2 naming it, no file written") {
    // A new name in a directory of its own: an existing file would be refused (exit 2) for another reason.
    val out = os.temp.dir() / "x.jsonl"
    TestShell.run(List("replay", "--from-topic", "no-such-source", "--to-file", out.toString),
      SandboxFixture.env, bankops.support.Repo.root).map { r =>
      assertEquals(r.code, 2, r.err)
      assert(r.err.contains("no-such-source"), r.err)
      assert(!os.exists(out))
    }
  }

  test("a missing target topic is exit 2 from a topic source too, with records to copy or none") {
    val (full, empty) = (TopologyFixture.unique("src"), TopologyFixture.unique("empty"))
    for {
      _ <- apply(full, empty)
      _ <- seed(full)
      fromFull <- SandboxFixture.cli("replay", "--from-topic", full, "--to-topic", "no-such-replay-target")
      fromEmpty <- SandboxFixture.cli("replay", "--from-topic", empty, "--to-topic", "no-such-replay-target")
    } yield
      for (r <- List(fromFull, fromEmpty)) {
        assertEquals(r.code, 2, r.err)
        assert(r.err.contains("target topic no-such-replay-target does not exist (--create-topic"), r.err)
        assert(!r.err.contains("acknowledged"), r.err)
      }
  }

  test("a record whose line would pass 32 MiB: --to-file and capture refuse it by name, exit 2, nothing written; --limit before it writes") {
    val topic = TopologyFixture.unique("huge")
    val dir = os.temp.dir(prefix = "huge")
    // 25 MiB that are not in the wire format: the line carries them as base64, 33.3 MiB.
    // Arrays.fill, not Array.fill: a closure called per byte was a tenth of the test JVM's CPU in a full run (JFR).
    val huge = new Array[Byte](25 * 1024 * 1024)
    java.util.Arrays.fill(huge, 'A'.toByte)
    for {
      settings <- SandboxFixture.settings
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a =>
        KafkaClients.await(a.createTopics(java.util.List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 1, 3.toShort)
                .configs(java.util.Map.of("max.message.bytes", (30 * 1024 * 1024).toString)))).all()))
      _ <- ChunkProducer.resource(settings.kafka, 60.seconds, _.withProperty("max.request.size", (30 * 1024 * 1024).toString)).use(p =>
        List("small".getBytes("UTF-8"), huge).traverse_(v =>
          p.send(fs2.Chunk.singleton(new org.apache.kafka.clients.producer.ProducerRecord[Array[Byte], Array[Byte]](topic, 0, null, v)))((_, _, e) =>
            if (e != null) throw e).flatten))
      toFile <- SandboxFixture.cli("replay", "--from-topic", topic, "--to-file", (dir / "all.jsonl").toString)
      limited <- SandboxFixture.cli("replay", "--from-topic", topic, "--to-file", (dir / "first.jsonl").toString, "--limit", "1")
      captured <- SandboxFixture.cli("capture", "--topic", topic, "--out", (dir / "all.zip").toString)
    } yield {
      assertEquals(toFile.code, 2, toFile.err)
      assert(
        toFile.err.contains(s"the record at $topic-0@1 takes 34 MiB as a line, over the 32 MiB a line can hold; nothing written to " +
          s"${dir / "all.jsonl"}"), toFile.err)
      assertEquals(limited.code, 0, limited.err)
      assertEquals(
        os.read.lines(dir / "first.jsonl").toList.map(l => parse(l).toOption.flatMap(_.hcursor.get[Long]("offset").toOption)), List(Option(0L)))
      assertEquals(captured.code, 2, captured.err)
      assert(captured.err.contains(s"the record at $topic-0@1 takes 34 MiB as an archive line, over the 32 MiB a line can hold; nothing captured"),
        captured.err)
      // Neither the refused file nor the archive, nor a partial of either.
      assertEquals(os.list(dir).map(_.last).toList, List("first.jsonl"))
    }
  }
}

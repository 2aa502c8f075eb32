package bankops.jobs.capture

import cats.effect.{IO, Resource}
import cats.syntax.all._
import io.circe.Json
import io.circe.syntax._
import org.apache.kafka.clients.admin.NewTopic
import org.apache.kafka.clients.producer.ProducerRecord
import org.apache.kafka.common.TopicPartition
import org.apache.kafka.common.config.ConfigResource

import java.security.MessageDigest
import java.util.zip.ZipFile
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.services.kafka.{ChunkProducer, ClusterTopics, ConsumerGroups, KafkaClients}
import bankops.services.registry.RegistryClient
import bankops.support.{ArchiveEntries, BankFixture, CliProcess, IOSuite, OnSandbox, SandboxFixture, TopologyFixture}

/** restore keeps what capture took and writes nothing but its own names: timestamps of either type, a compacted topic,
  * a record over 1 MiB, bytes that only look like a frame, a group committed before the window; and every hostile
  * archive (a foreign subject, a bad line after good ones, a partition the topic lacks, two manifests, a zip bomb)
  * refused before anything is created.
  */
class RestoreSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private val dir = os.temp.dir(prefix = "restore")
  private val big = 1500 * 1024

  final case class Captured(bank: BankFixture, misc: String, schemaId: Int, archive: os.Path)

  private def produce(records: List[ProducerRecord[Array[Byte], Array[Byte]]]): IO[Unit] =
    SandboxFixture.settings.flatMap(s =>
      ChunkProducer.resource(s.kafka, 30.seconds, _.withProperty("max.request.size", (4 * 1024 * 1024).toString)).use(p =>
        p.send(fs2.Chunk.from(records))((_, _, e) => if (e != null) throw e).flatten))

  private def record(topic: String, key: String, value: Array[Byte]) =
    new ProducerRecord[Array[Byte], Array[Byte]](topic, 0, key.getBytes("UTF-8"), value)

  /** A bank's commands, a dead letter whose bytes start like a frame of the commands' schema, and a compacted topic
    * stamped by the broker (LogAppendTime) holding a record over 1 MiB; captured whole into one archive.
    */
  private val fixture = ResourceSuiteLocalFixture("captured",
    Resource.eval(OnSandbox.turns.io(alone = false)(for {
      bank <- BankFixture.create("restore")
      _ <- bank.send((1 to 30).map(i => BankFixture.transfer(BankFixture.id(), "t", i.toLong, "cash", "NL66OPEN0000000000")))
      schemaId <- bank.read(bank.commands).map(_.head.hcursor.get[Int]("schemaId").toOption.get)
      lookalike = Array[Byte](0) ++ java.nio.ByteBuffer.allocate(4).putInt(schemaId).array() ++ "not Avro at all".getBytes("UTF-8")
      misc = s"${TopologyFixture.unique("restore")}-misc"
      settings <- SandboxFixture.settings
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a =>
        KafkaClients.await(a.createTopics(List(new NewTopic(misc, 1, 3.toShort).configs(Map("message.timestamp.type" -> "LogAppendTime",
                  "cleanup.policy" -> "compact", "max.message.bytes" -> (3 * 1024 * 1024).toString,
                  "min.insync.replicas" -> "2").asJava)).asJava).all()))
      _ <- produce(List(record(bank.deadLetters, "k", lookalike), record(misc, "a", "first".getBytes), record(misc, "a", "second".getBytes),
          record(misc, "b", Array.tabulate(big)(i => (i % 251).toByte))))
      archive = dir / "whole.zip"
      r <- SandboxFixture.cli("capture", "--topic", bank.commands, "--topic", bank.deadLetters, "--topic", misc, "--out", archive.toString)
      _ = assert(r.code == 0, r.err)
    } yield Captured(bank, misc, schemaId, archive))))

  override def munitFixtures = List(fixture)

  private def withoutTopic(j: Json) = j.mapObject(_.remove("topic"))

  private def configs(topic: String): IO[Map[String, String]] = SandboxFixture.settings.flatMap(s =>
    KafkaClients.javaAdmin(s.kafka).use { a =>
      val resource = new ConfigResource(ConfigResource.Type.TOPIC, topic)
      KafkaClients.await(a.describeConfigs(List(resource).asJava).all()).map(_.get(resource).entries().asScala.map(e => e.name -> e.value).toMap)
    })

  test("timestamps of the broker, a compacted topic, a record over 1 MiB and a frame lookalike: each kept, each difference said") {
    val c = fixture()
    for {
      restored <- SandboxFixture.cli("restore", c.archive.toString, "--topic-prefix", "f1.")
      misc <- c.bank.read(c.misc)
      copy <- c.bank.read(s"f1.${c.misc}")
      letters <- c.bank.read(c.bank.deadLetters)
      copiedLetters <- c.bank.read(s"f1.${c.bank.deadLetters}")
      copyConfigs <- configs(s"f1.${c.misc}")
    } yield {
      assertEquals(restored.code, 0, restored.err)
      // The broker's times, kept as the copy's own (CreateTime): a window by time reads the same records on both.
      assertEquals(misc.map(_.hcursor.get[String]("timestampType").toOption), List.fill(3)(Some("LogAppendTime")))
      assertEquals(copy.map(_.hcursor.get[String]("timestampType").toOption), List.fill(3)(Some("CreateTime")))
      def kept(j: Json) = withoutTopic(j).mapObject(_.remove("timestampType"))
      assertEquals(copy.map(kept), misc.map(kept))
      assertEquals(copy.last.hcursor.get[String]("raw").toOption.map(java.util.Base64.getDecoder.decode(_).length), Some(big))
      assert(restored.err.contains(s"f1.${c.misc}: 3 record(s) had the broker's append time (LogAppendTime): restored as CreateTime"),
        restored.err)
      assertEquals((copyConfigs("cleanup.policy"), copyConfigs("message.timestamp.type")), ("delete", "CreateTime"))
      assert(restored.err.contains(s"f1.${c.misc}: the captured topic is compacted; the copy is not"), restored.err)
      // Bytes that begin like a frame of a captured schema but are not Avro keep their bytes, id and all.
      assertEquals(copiedLetters.map(withoutTopic), letters.map(withoutTopic))
      assertEquals(letters.flatMap(_.hcursor.get[Int]("schemaId").toOption), List(c.schemaId))
      assert(restored.err.contains(s"f1.${c.bank.deadLetters}: 1 key(s) or value(s) begin like a frame of a captured schema but do not decode"),
        restored.err)
    }
  }

  test("a group committed before the window: set at the copy's first record, and said") {
    val c = fixture()
    val group = s"restore-${BankFixture.id().take(8)}"
    val archive = dir / "window.zip"
    for {
      settings <- SandboxFixture.settings
      // The partition holding most of the 30 commands (ten or more): the keys are random, and a partition of exactly three
      // records has none in the window, so its group would stand at the (empty) copy's end, 0 too, with nothing said.
      p <- c.bank.read(c.bank.commands).map(_.flatMap(_.hcursor.get[Int]("partition").toOption).groupBy(identity).maxBy(_._2.size)._1)
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a => ConsumerGroups.alter(a, group, Map(new TopicPartition(c.bank.commands, p) -> 1L)))
      captured <- SandboxFixture.cli("capture", "--topic", c.bank.commands, "--group", group, "--from", "offset:3", "--out", archive.toString)
      restored <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "f2.")
      committed <- KafkaClients.javaAdmin(settings.kafka).use(ConsumerGroups.committed(_, s"f2.$group"))
    } yield {
      assertEquals(captured.code, 0, captured.err)
      assertEquals(restored.code, 0, restored.err)
      assertEquals(committed, Map(new TopicPartition(s"f2.${c.bank.commands}", p) -> 0L))
      assert(restored.err.contains(s"group f2.$group on f2.${c.bank.commands}-$p: committed at 1, before the window's first record (3)"),
        restored.err)
    }
  }

  /** The archive with its files changed by `f` (a file it returns None for is left out), `extra` files added, and the
    * manifest's sizes and checksums made to match, as a forger would.
    */
  private def forged(archive: os.Path, extra: Map[String, Array[Byte]] = Map.empty, version1: Boolean = false)(
      f: (String, Array[Byte]) => Option[Array[Byte]]
  ): os.Path = {
    val out = dir / s"forged-${BankFixture.id().take(8)}.zip"
    // Files by the names restore gives them, stored as the archive stores them (a records file as its zstd frame), or
    // as version 1 stored them: every file deflated by the ZIP, the manifest of version 1.
    val files = ArchiveEntries.read(archive).map(e => if (version1) e.deflated else e)
    // An extra file of an existing name (the manifest, too) takes its place.
    val changed = files.filterNot(e => extra.contains(e.name)).flatMap { e =>
      (if (e.name == ArchiveParts.ManifestFile) Some(e.bytes) else f(e.name, e.bytes)).map(e.withBytes)
    } ++ extra.map { case (n, b) => ArchiveEntries.Entry(n, b, zstd = false) }
    def sha(b: Array[Byte]) = MessageDigest.getInstance("SHA-256").digest(b).map("%02x".format(_)).mkString
    // Each partition's count as its records file now holds it (restore compares them), unless the manifest is forged too.
    def recounted(m: Json): Json = if (extra.contains(ArchiveParts.ManifestFile)) m
    else m.hcursor
      .downField("topics").withFocus(_.mapArray(_.map { t =>
        val topic = t.hcursor.get[String]("topic").toOption.get
        val counts = changed.find(_.name == ArchiveParts.records(topic)).fold(Map.empty[Int, Int])(e =>
          filledLines(e.bytes).flatMap(l =>
            io.circe.parser.parse(l).toOption.flatMap(_.hcursor.get[Int]("partition").toOption))
            .toList.groupBy(identity).map { case (p, l) => p -> l.size })
        t.mapObject(_.add("partitions",
            Json.fromValues(t.hcursor.downField("partitions").focus.flatMap(_.asArray).getOrElse(Vector.empty)
                .filter(p => counts.contains(p.hcursor.get[Int]("partition").toOption.get))
                .map(p => p.mapObject(_.add("records", counts(p.hcursor.get[Int]("partition").toOption.get).asJson))))))
      })).top.get
    val manifest = recounted(io.circe.parser.parse(text(changed.find(_.name == ArchiveParts.ManifestFile).get.bytes)).toOption.get).mapObject(o =>
      (if (version1) o.add("version", 1.asJson) else o).add(
        "files",
        changed.filter(_.name != ArchiveParts.ManifestFile).map { e =>
          Json.obj("name" -> e.storedName.asJson, "bytes" -> e.stored.length.asJson, "sha256" -> sha(e.stored).asJson)
        }.asJson))
    ArchiveEntries.write(out,
      changed.map(e => if (e.name == ArchiveParts.ManifestFile) e.withBytes(manifest.spaces2.getBytes("UTF-8")) else e))
  }

  private def text(b: Array[Byte]) = new String(b, "UTF-8")

  /** A records file's lines that hold something. An empty one costs no string: the bomb below is 64 Mi newlines, and a
    * string for each was most of the test JVM's CPU in this suite (JFR).
    */
  private def filledLines(b: Array[Byte]): List[String] = {
    val lines = List.newBuilder[String]
    var start = 0
    while (start < b.length) {
      var end = start
      while (end < b.length && b(end) != '\n') end += 1
      if (end > start) Some(new String(b, start, end - start, "UTF-8")).filter(_.trim.nonEmpty).foreach(lines += _)
      start = end + 1
    }
    lines.result()
  }

  private def newlines(n: Int): Array[Byte] = { val b = new Array[Byte](n); java.util.Arrays.fill(b, '\n'.toByte); b }

  test("capture writes version 3, its records files zstd frames; an archive of version 1 (deflated by the ZIP) restores the same") {
    val c = fixture()
    val records = ArchiveParts.records(c.bank.commands)
    val old = forged(c.archive, version1 = true)((_, b) => Some(b))
    for {
      shown <- SandboxFixture.cli("capture", "show", old.toString, "-o", "json")
      restored <- SandboxFixture.cli("restore", old.toString, "--topic-prefix", "f8.")
      commands <- c.bank.read(c.bank.commands)
      copy <- c.bank.read(s"f8.${c.bank.commands}")
    } yield {
      val entries = ArchiveEntries.read(c.archive)
      assert(entries.exists(e => e.name == records && e.zstd), entries.map(_.storedName))
      assert(ArchiveEntries.read(old).forall(!_.zstd))
      assert(ArchiveEntries.text(c.archive, ArchiveParts.ManifestFile).contains("\"version\" : 3"))
      assertEquals(shown.code, 0, shown.err)
      assert(shown.out.contains("\"version\":1,"), shown.out)
      assertEquals(restored.code, 0, restored.err)
      assertEquals(copy.map(withoutTopic(_).noSpaces).sorted, commands.map(withoutTopic(_).noSpaces).sorted)
    }
  }

  test("a source registry whose ids differ: frames that decode get the target's id, bytes that only look like one keep theirs") {
    val c = fixture()
    val other = 77777
    def moved(raw: Array[Byte]) =
      if (raw.length >= 5 && raw(0) == 0 && java.nio.ByteBuffer.wrap(raw, 1, 4).getInt == c.schemaId) {
        val out = raw.clone(); java.nio.ByteBuffer.wrap(out, 1, 4).putInt(other); out
      } else raw
    val (decoder, encoder) = (java.util.Base64.getDecoder, java.util.Base64.getEncoder)
    // As a capture from a registry that gave the schema id 77777: its entry and every frame carrying it.
    val archive = forged(c.archive)((n, b) =>
      Some(if (n == ArchiveParts.Schemas) io.circe.parser.parse(text(b)).toOption.get.mapArray(_.map(_.mapObject(o =>
              if (o("id").flatMap(_.asNumber).flatMap(_.toInt).contains(c.schemaId)) o.add("id", other.asJson) else o))).noSpaces.getBytes("UTF-8")
        else if (!n.startsWith("records/")) b
        else text(b).linesIterator.map(l =>
          io.circe.parser.parse(l).toOption.get.mapObject(o =>
            o("raw").flatMap(_.asString).fold(o)(r => o.add("raw", encoder.encodeToString(moved(decoder.decode(r))).asJson))).noSpaces)
          .mkString("", "\n", "\n").getBytes("UTF-8")))
    for {
      restored <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "f3.")
      commands <- c.bank.read(c.bank.commands)
      copy <- c.bank.read(s"f3.${c.bank.commands}")
      letters <- c.bank.read(s"f3.${c.bank.deadLetters}")
    } yield {
      assertEquals(restored.code, 0, restored.err)
      assert(restored.err.contains(s"ids $other→${c.schemaId}"), restored.err)
      assertEquals(copy.map(withoutTopic(_).noSpaces).sorted, commands.map(withoutTopic(_).noSpaces).sorted)
      assertEquals(letters.flatMap(_.hcursor.get[Int]("schemaId").toOption), List(other))
    }
  }

  test("a referenced schema goes under the prefix: the live subject of that name gets no new version") {
    val c = fixture()
    val ref = s"nl.openweb.data.Note-${BankFixture.id().take(8)}"
    val note = """{"type":"record","name":"Note","namespace":"nl.openweb.data","fields":[{"name":"text","type":"string"}]}"""
    val live = """{"type":"record","name":"Note","namespace":"nl.openweb.data","fields":[{"name":"other","type":"long"}]}"""
    // The commands' schema as if it referenced a Note of its registry (it parses alone, so it decodes as before).
    val archive = forged(c.archive)((n, b) =>
      Some(if (n != ArchiveParts.Schemas) b
        else io.circe.parser.parse(text(b)).toOption.get.mapArray(schemas =>
          schemas.map(_.mapObject(_.add("references",
                Json.arr(Json.obj("name" -> "nl.openweb.data.Note".asJson, "subject" -> ref.asJson,
                    "version" -> 1.asJson))))) :+ Json.obj("id" -> 88888.asJson, "subject" -> ref.asJson, "version" -> 1.asJson,
            "schema" -> note.asJson, "references" -> Json.arr())).noSpaces.getBytes("UTF-8")))
    for {
      settings <- SandboxFixture.settings
      _ <- RegistryClient.resource(settings).use(_.register(ref, live))
      restored <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "f4.")
      versions <- RegistryClient.resource(settings).use(r => (r.versions(ref), r.versions(s"f4.$ref")).tupled)
      copy <- c.bank.read(s"f4.${c.bank.commands}")
    } yield {
      assertEquals(restored.code, 0, restored.err)
      assertEquals(versions, (List(1), List(1)))
      assertEquals(copy.size, 30)
    }
  }

  test("hostile archives: a foreign subject, a bad line, a partition the topic lacks, two manifests, forged counts, a zip bomb") {
    val c = fixture()
    val live = s"${c.bank.commands}-nl.openweb.data.ConfirmMoneyTransfer"
    val records = ArchiveParts.records(c.bank.commands)
    def schemas(f: List[Json] => List[Json])(n: String, b: Array[Byte]) =
      Some(if (n == ArchiveParts.Schemas) f(io.circe.parser.parse(text(b)).toOption.get.asArray.get.toList).asJson.noSpaces.getBytes("UTF-8") else b)
    val transfer = """{"type":"record","name":"ConfirmMoneyTransfer","namespace":"nl.openweb.data","fields":[{"name":"evil","type":"string"}]}"""
    val foreign = forged(c.archive)(schemas(_ :+ Json.obj("id" -> 99999.asJson, "subject" -> live.asJson, "version" -> 1.asJson,
          "schema" -> transfer.asJson, "references" -> Json.arr())))
    val badLine = forged(c.archive)((n, b) => Some(if (n == records) b ++ "{\"partition\":0,\n".getBytes("UTF-8") else b))
    val partition = forged(c.archive)((n, b) =>
      Some(if (n == records) text(b).replaceFirst("\"partition\":[0-9]+", "\"partition\":57").getBytes("UTF-8") else b))
    // ZipOutputStream refuses a second entry of one name: the second is written under a name of the same length, then renamed in place.
    val twice = {
      val f = forged(c.archive, Map("manifest.jsoX" -> "{}".getBytes("UTF-8")))((_, b) => Some(b))
      val bytes = os.read.bytes(f)
      val (from, to) = ("manifest.jsoX".getBytes("UTF-8"), "manifest.json".getBytes("UTF-8"))
      bytes.indices.filter(i => bytes.slice(i, i + from.length).sameElements(from)).foreach(i => System.arraycopy(to, 0, bytes, i, to.length))
      os.write.over(f, bytes); f
    }
    // The manifest's count of a partition's records changed, every file's checksum still right.
    val counted = forged(c.archive,
      Map(ArchiveParts.ManifestFile -> {
        val in = new ZipFile(c.archive.toIO)
        val m = try new String(in.getInputStream(in.getEntry(ArchiveParts.ManifestFile)).readAllBytes(), "UTF-8")
        finally in.close()
        m.replaceFirst("\"records\" : ([0-9]+)", "\"records\" : 1$1").getBytes("UTF-8")
      }))((_, b) => Some(b))
    // 64 MiB of one byte: it deflates about a thousand times smaller, with a manifest that matches it (an archive of
    // version 1, whose records the ZIP deflates: refused before a byte is inflated; ArchiveReaderSuite has version 3's).
    val bomb = forged(c.archive, version1 = true)((n, b) => Some(if (n == records) newlines(64 * 1024 * 1024) else b))
    val cases = List(
      foreign -> s"subject $live (schema id 99999) belongs to no topic of the archive",
      badLine -> s"$records:31:",
      partition -> s"$records:1: partition 57, but the captured topic had 3 (0 to 2)",
      twice -> "two entries named manifest.json",
      counted -> "the archive was changed after capture; nothing created",
      bomb -> s"$records would inflate from")
    // Other suites share the sandbox: what this one could have written is its bank's subjects and the h<n>. names.
    def state = SandboxFixture.settings.flatMap(s =>
      (KafkaClients.javaAdmin(s.kafka).use(ClusterTopics.names).map(_.keys.filter(_.matches("h[0-9]\\..*")).toSet),
        RegistryClient.resource(s).use(r =>
          r.subjects.map(_.filter(_.contains(c.bank.commands))).flatMap(_.traverse(x => r.versions(x).map(x -> _))))).tupled)
    for {
      before <- state
      results <- cases.zipWithIndex.traverse { case ((archive, _), i) => SandboxFixture.cli("restore", archive.toString, "--topic-prefix", s"h$i.") }
      after <- state
    } yield {
      cases.zip(results).foreach { case ((archive, fragment), r) =>
        assertEquals(r.code, 2, s"${archive.last}: ${r.err}")
        assert(r.err.contains(fragment), s"${archive.last}: ${r.err}")
        assertEquals(r.err.linesIterator.count(_.startsWith("bankops: ")), 1, r.err)
      }
      assertEquals(after._1, before._1)
      assertEquals(after._2.toMap, before._2.toMap)
    }
  }

  private def sorted(js: List[Json]) = js.map(j => withoutTopic(j).mapObject(_.remove("timestampType")).noSpaces).sorted

  test("SIGTERM after a topic is written: exit 130 naming what is left; --resume writes the rest once; again, nothing") {
    val c = fixture()
    val release = dir / s"release-${BankFixture.id().take(8)}"
    for {
      p <- CliProcess.startWith(Map("BANKOPS_RESTORE_PAUSE" -> release.toString), "restore", c.archive.toString, "--topic-prefix", "f5.")
      _ <- p.await(2.minutes, "hold after the first topic")(IO.blocking(os.read(p.err).contains("(BANKOPS_RESTORE_PAUSE)")))
      code <- BankFixture.signal(p.process, "TERM")
      stopped = os.read(p.err)
      resumed <- SandboxFixture.cli("restore", c.archive.toString, "--topic-prefix", "f5.", "--resume")
      again <- SandboxFixture.cli("restore", c.archive.toString, "--topic-prefix", "f5.", "--resume")
      source <- List(c.bank.commands, c.bank.deadLetters, c.misc).traverse(c.bank.read)
      copy <- List(c.bank.commands, c.bank.deadLetters, c.misc).traverse(t => c.bank.read(s"f5.$t"))
    } yield {
      assertEquals(code, 130, stopped)
      assert(
        stopped.contains("restore: interrupted (SIGTERM) after writing 30 of 34 record(s); left in place: topic(s) created " +
          s"f5.${c.bank.commands}, f5.${c.bank.deadLetters}, f5.${c.misc}; subject(s) registered f5.${c.bank.commands}-"), stopped)
      assert(stopped.contains("The same command with --resume writes the rest"), stopped)
      assertEquals(resumed.code, 0, resumed.err)
      assert(resumed.err.contains(s"restore: 0 records written to f5.${c.bank.commands} after the 30 an interrupted restore had written"),
        resumed.err)
      assert(resumed.err.contains(s"restore: 3 records written to f5.${c.misc}"), resumed.err)
      assertEquals(again.code, 0, again.err)
      assert(again.err.contains(s"restore: 0 records written to f5.${c.misc} after the 3"), again.err)
      // Each record once, at its captured offset: the copy is the source.
      assertEquals(copy.map(sorted), source.map(sorted))
    }
  }

  test("--resume onto the first records of each partition writes the others; onto other records, exit 2 and nothing written") {
    val c = fixture()
    val records = ArchiveParts.records(c.bank.commands)
    def lines(f: Iterator[String] => Iterator[String])(n: String, b: Array[Byte]) =
      Some(if (n == records) f(text(b).linesIterator).mkString("", "\n", "\n").getBytes("UTF-8") else b)
    // Where an interrupted restore stops: the first 10 lines, each partition's first records. Every partition's lines
    // but its first: never a start (the last 20 lines were one in CI when the first 10 held whole partitions).
    def partition(l: String) = io.circe.parser.parse(l).toOption.flatMap(_.hcursor.get[Int]("partition").toOption)
    def notFirst(ls: Iterator[String]) = {
      val all = ls.toList
      val firsts = all.groupBy(partition).values.map(_.head).toSet
      all.filterNot(firsts).iterator
    }
    val (head, tail) = (forged(c.archive)(lines(_.take(10))), forged(c.archive)(lines(notFirst)))
    for {
      first <- SandboxFixture.cli("restore", head.toString, "--topic-prefix", "f6.")
      resumed <- SandboxFixture.cli("restore", c.archive.toString, "--topic-prefix", "f6.", "--resume")
      other <- SandboxFixture.cli("restore", tail.toString, "--topic-prefix", "f7.")
      refused <- SandboxFixture.cli("restore", c.archive.toString, "--topic-prefix", "f7.", "--resume")
      plain <- SandboxFixture.cli("restore", c.archive.toString, "--topic-prefix", "f7.")
      source <- c.bank.read(c.bank.commands)
      copy <- c.bank.read(s"f6.${c.bank.commands}")
      left <- c.bank.read(s"f7.${c.bank.commands}")
    } yield {
      assertEquals((first.code, other.code), (0, 0), first.err + other.err)
      assertEquals(resumed.code, 0, resumed.err)
      assert(resumed.err.contains(s"restore: 20 records written to f6.${c.bank.commands} after the 10"), resumed.err)
      assertEquals(sorted(copy), sorted(source))
      assertEquals(refused.code, 2, refused.err)
      assert(refused.err.contains(s"--resume: target topic f7.${c.bank.commands} partition "), refused.err)
      assert(refused.err.contains("not what an interrupted restore of this archive left"), refused.err)
      assertEquals(left.size, source.size - source.flatMap(_.hcursor.get[Int]("partition").toOption).distinct.size)
      // Without --resume a target that holds records is refused as before, and the refusal names --resume.
      assertEquals(plain.code, 2, plain.err)
      assert(plain.err.contains("--resume to finish a restore that was interrupted"), plain.err)
    }
  }
}

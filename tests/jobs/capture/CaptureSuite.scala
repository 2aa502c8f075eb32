package bankops.jobs.capture

import cats.effect.IO
import cats.syntax.all._
import io.circe.Json
import org.apache.kafka.common.TopicPartition

import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.services.kafka.{ChunkProducer, ConsumerGroups, EndOffsets, KafkaClients}
import bankops.support.{ArchiveEntries, BankFixture, CliProcess, IOSuite, KafkaTools, PythonClients, SandboxFixture, TopologyFixture}
import bankops.support.OnSandbox

/** capture and restore on the sandbox: a window of a bank's topics with a group that lags, restored under a prefix,
  * read back by confluent-kafka (an independent client) record for record; and every bad archive refused in one line.
  */
class CaptureSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private val dir = os.temp.dir(prefix = "capture")
  private val group = s"capture-test-${BankFixture.id().take(8)}"

  /** A bank's commands (several partitions, keys, a header), a group that has read some of them, and one archive. */
  private val fixture = ResourceSuiteLocalFixture("captured",
    cats.effect.Resource.eval(OnSandbox.turns.io(alone = false)(for {
      bank <- BankFixture.create("capture")
      lines = (1 to 60).map(i => BankFixture.transfer(BankFixture.id(), "t", i.toLong, "cash", "NL66OPEN0000000000"))
      _ <- bank.send(lines)
      // A dead letter as the handler writes one: bytes that are not Avro, with headers. Its timestamp is not the
      // append time (so the copy's is seen to be kept) and is well inside the topic's retention: an older one is
      // deleted by the broker's next retention check, at any moment of the test.
      _ <- SandboxFixture.settings.flatMap(s =>
        bankops.services.kafka.ChunkProducer.resource(s.kafka, 30.seconds).use(p =>
          p.send(fs2.Chunk.singleton(new org.apache.kafka.clients.producer.ProducerRecord[Array[Byte], Array[Byte]](bank.deadLetters, null,
                Long.box(System.currentTimeMillis() - 3600000L),
                "k".getBytes("UTF-8"), Array[Byte](0, 1, 2, -1),
                List[org.apache.kafka.common.header.Header](
                  new org.apache.kafka.common.header.internals.RecordHeader("bankops.dlq.reason", "not Avro".getBytes("UTF-8"))).asJava)))(
            (_, _, _) => ())
            .flatten))
      settings <- SandboxFixture.settings
      // The group has read the first two records of each partition: a lag to keep.
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a =>
        ConsumerGroups.alter(a, group, (0 to 2).map(p => new TopicPartition(bank.commands, p) -> 2L).toMap))
      archive = dir / "incident.zip"
      r <- SandboxFixture.cli("capture", "--topic", bank.commands, "--topic", bank.deadLetters, "--group", group, "--out", archive.toString)
    } yield (bank, archive, r))))

  override def munitFixtures = List(fixture)

  private def offsets(g: String, topic: String): IO[Map[Int, Long]] = SandboxFixture.settings.flatMap(s =>
    KafkaClients.javaAdmin(s.kafka).use(ConsumerGroups.committed(_, g))).map(_.collect { case (tp, o) if tp.topic == topic => tp.partition -> o })

  private def comparable(j: Json): Json = j.mapObject(_.filterKeys(k => k != "offset"))

  test("capture then restore under a prefix: every record, key, header and value as confluent-kafka reads it; the group at the same positions") {
    val (bank, archive, captured) = fixture()
    assertEquals(captured.code, 0, captured.err)
    assert(captured.err.contains(s"capture: 61 records from 2 topic(s)"), captured.err)
    for {
      restored <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "r1.")
      _ = assertEquals(restored.code, 0, restored.err)
      original <- PythonClients.consume(bank.commands)
      original0 <- bank.read(bank.commands)
      copy <- PythonClients.consume(s"r1.${bank.commands}")
      before <- offsets(group, bank.commands)
      after <- offsets(s"r1.$group", s"r1.${bank.commands}")
      kafkaBefore <- KafkaTools.committed(group, bank.commands)
      kafkaAfter <- KafkaTools.committed(s"r1.$group", s"r1.${bank.commands}")
      letters <- bank.read(bank.deadLetters)
      restoredLetters <- bank.read(s"r1.${bank.deadLetters}")
      shown <- SandboxFixture.cli("capture", "show", archive.toString, "--records")
    } yield {
      assertEquals(copy.size, 60)
      // The window started at each partition's first offset: restored offsets are the captured ones, record for record.
      assertEquals(copy.map(_.noSpaces).sorted, original.map(_.noSpaces).sorted)
      assertEquals(after, before)
      assertEquals(before.values.toSet, Set(2L))
      // Kafka's own tool reads the same positions.
      assertEquals((kafkaAfter, kafkaBefore), (before, before))
      // The dead letter: its bytes, key, headers and timestamp, as inspect shows an undecodable record.
      assertEquals(restoredLetters.map(_.mapObject(_.remove("topic"))), letters.map(_.mapObject(_.remove("topic"))))
      assertEquals(letters.size, 1)
      // Decoded from the archive alone, with the archive's schemas: line for line what inspect prints of the topics
      // (the dead letter's headers and undecodable bytes included).
      val inspected = (original0 ++ letters).map(_.noSpaces).sorted
      assertEquals(shown.outLines.flatMap(io.circe.parser.parse(_).toOption).map(_.noSpaces).sorted, inspected)
      assertEquals(shown.outLines.size, 61)
      assertEquals(
        shown.outLines.flatMap(l => io.circe.parser.parse(l).toOption).flatMap(_.hcursor.downField("value").downField("amount")
            .as[Long].toOption).sorted, (1L to 60L).toList)
    }
  }

  test("--from-findings: the flagged accounts' rows and chains are captured, and validate finds the same on the restored copy") {
    val (bank, _, _) = fixture()
    val (iban, other) = ("NL12OPEN0000000001", "NL12OPEN0000000002")
    def change(i: String, balance: Long, by: Long) =
      s"""{"record":"BalanceChanged","key":"$i","value":{"iban":"$i","new_balance":$balance,"changed_by":$by,"from_to":"cash","description":"d"}}"""
    val findings = dir / "findings.jsonl"
    val archive = dir / "accounts.zip"
    for {
      _ <- bank.send(List(change(iban, 100, 100), change(iban, 150, 50), change(other, 7, 7)), to = Some(bank.balance))
      // The database disagrees with the chain of one account: the finding to reproduce.
      _ <- BankFixture.withDb(bank.dbUrl)(_.createStatement().execute(
          s"INSERT INTO balance (iban, token, amount, type) VALUES ('$iban', 't', 999, 'AUTO'), ('$other', 't', 7, 'AUTO')"))
      validated <- bank.validate
      _ = os.write.over(findings, validated.out)
      captured <- SandboxFixture.cli("capture", "--topic", bank.commands, "--from-findings", findings.toString, "--balance-topic", bank.balance,
        "--db-url", bank.dbUrl, "--out", archive.toString)
      restored <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "r3.", "--db-name", s"restored_${BankFixture.id().take(8)}")
      url = restored.err.linesIterator.collectFirst { case l if l.contains("--db-url ") => l.split("--db-url ")(1).stripSuffix("`") }
      again <- SandboxFixture.cli("balances", "validate", "--topic", s"r3.${bank.balance}", "--db-url", url.getOrElse("none"), "-o", "json")
    } yield {
      val found = validated.outLines.filter(_.contains("\"finding\""))
      assert(found.exists(_.contains(iban)) && !found.exists(_.contains(other)), validated.out)
      assertEquals(captured.code, 0, captured.err)
      assert(captured.err.contains(s"capture: 1 account row(s) and 2 ${bank.balance} record(s) of their chains"), captured.err)
      assertEquals(restored.code, 0, restored.err)
      assertEquals(again.code, validated.code, again.err)
      assertEquals(again.outLines.filter(_.contains("\"finding\"")), found)
    }
  }

  test("--redact token: every token masked in the archive's bytes, the records still decode with their schemas") {
    val (bank, _, _) = fixture()
    val archive = dir / "redacted.zip"
    for {
      r <- SandboxFixture.cli("capture", "--topic", bank.commands, "--redact", "token", "--out", archive.toString)
      shown <- SandboxFixture.cli("capture", "show", archive.toString, "--records")
      manifest <- SandboxFixture.cli("capture", "show", archive.toString, "-o", "json")
    } yield {
      assertEquals(r.code, 0, r.err)
      val tokens = shown.outLines.flatMap(l => io.circe.parser.parse(l).toOption).flatMap(_.hcursor.downField("value").get[String]("token").toOption)
      assertEquals((tokens.size, tokens.toSet), (60, Set("****")))
      val text = ArchiveEntries.text(archive, s"records/${bank.commands}.jsonl")
      // Values are kept as their bytes only, so the masked bytes are all there is: show decoded "****" from them.
      assert(!text.contains("\"token\"") && text.linesIterator.forall(_.contains("\"raw\":")), text.take(500))
      assert(manifest.out.contains("\"redacted\":[\"token\"]"), manifest.out)
    }
  }

  test("a transaction open at the end: stop says which and what it left out; read keeps its records marked; wait takes them once it commits") {
    val topic = s"${TopologyFixture.unique("capture")}-held"
    val (archive, read, waited, gave) = (dir / "held.zip", dir / "held-read.zip", dir / "held-wait.zip", dir / "held-gave-up.zip")
    def record(i: Int) = new org.apache.kafka.clients.producer.ProducerRecord[Array[Byte], Array[Byte]](topic, 0, null, s"v$i".getBytes("UTF-8"))
    val committed = new java.util.concurrent.atomic.AtomicBoolean(false)
    for {
      settings <- SandboxFixture.settings
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a =>
        KafkaClients.await(a.createTopics(List(new org.apache.kafka.clients.admin.NewTopic(topic, 1, 1.toShort)).asJava).all()))
      // Open for the whole test, several captures long: the handler's 10 s transaction timeout would let the broker
      // abort it part-way on a busy machine (a fresh-clone run saw the wait find nothing open, 30 s in).
      producer <- IO.blocking(KafkaClients.transactionalProducer(
          settings.kafka.copy(properties = settings.kafka.properties + ("transaction.timeout.ms" -> "600000")), s"$topic-txn", 30.seconds))
      results <- IO.blocking {
        producer.initTransactions()
        producer.beginTransaction(); (0 until 10).foreach(i => producer.send(record(i))); producer.commitTransaction()
        // Ten more, in a transaction left open for the whole capture, as a producer that hung would leave it.
        producer.beginTransaction(); (10 until 20).foreach(i => producer.send(record(i))); producer.flush()
      } >>
        (for {
          stopped <- SandboxFixture.cli("capture", "--topic", topic, "--out", archive.toString)
          past <- SandboxFixture.cli("capture", "--topic", topic, "--open-transactions", "read", "--out", read.toString)
          // A window wholly past the last stable offset: read still finds its records.
          onlyOpen <- SandboxFixture.cli("capture", "--topic", topic, "--from", "offset:11", "--open-transactions", "read", "--out",
            (dir / "held-only-open.zip").toString)
          shown <- SandboxFixture.cli("capture", "show", read.toString, "--records")
          manifest <- SandboxFixture.cli("capture", "show", read.toString, "-o", "json")
          restored <- SandboxFixture.cli("restore", read.toString, "--topic-prefix", "t1.")
          gaveUp <- SandboxFixture.cli("capture", "--topic", topic, "--open-transactions", "wait:1s", "--out", gave.toString)
          // The transaction commits while a capture waits for it: that capture takes all twenty.
          p <- CliProcess.start("capture", "--topic", topic, "--open-transactions", "wait:2m", "--out", waited.toString)
          _ <- p.await(2.minutes, "the wait")(IO.blocking(os.read(p.err).contains("capture: waiting up to 120s for the transaction(s) open on")))
          _ <- IO.blocking { producer.commitTransaction(); committed.set(true) }
          code <- p.exited(2.minutes)
        } yield (stopped, past, shown, manifest, restored, gaveUp, code, os.read(p.err), onlyOpen))
          .guarantee(IO.blocking { if (!committed.get) producer.abortTransaction(); producer.close() })
    } yield {
      val (stopped, past, shown, manifest, restored, gaveUp, code, waitErr, onlyOpen) = results
      assertEquals(onlyOpen.code, 0, onlyOpen.err)
      assert(onlyOpen.err.contains("capture: 10 records from 1 topic(s)"), onlyOpen.err)
      assertEquals(stopped.code, 0, stopped.err)
      assert(stopped.err.contains(s"capture: 10 records from 1 topic(s)"), stopped.err)
      assert(stopped.err.contains(s"warning: $topic-0: an open transaction (producer id "), stopped.err)
      // Offsets 0 to 9, the commit's marker at 10, the open transaction from 11.
      assert(stopped.err.contains("its first record at offset 11, last written"), stopped.err)
      assert(stopped.err.contains("held the read at the last stable offset 11 for the whole capture: the 10 offset(s) after it are not captured"),
        stopped.err)
      // read: all twenty, the ten past the last stable offset marked in the manifest, in show and in restore's report.
      assertEquals(past.code, 0, past.err)
      assert(
        past.err.contains("capture: 20 records from 1 topic(s)") &&
          past.err.contains("capture: 10 record(s) past the last stable offset read uncommitted"), past.err)
      assert(!past.err.contains("warning:"), past.err)
      val lines = shown.outLines.map(io.circe.parser.parse(_).toOption.get.hcursor)
      assertEquals(lines.filter(_.get[Boolean]("uncommitted").contains(true)).flatMap(_.get[Long]("offset").toOption), (11L to 20L).toList)
      assertEquals(lines.size, 20)
      val m = io.circe.parser.parse(manifest.out).toOption.get.hcursor
      assertEquals(m.get[Int]("version"), Right(3))
      assertEquals(m.downField("topics").downArray.downField("partitions").downArray.downField("uncommitted").focus.map(_.noSpaces),
        Some("""{"from":11,"records":10}"""))
      assertEquals(restored.code, 0, restored.err)
      assert(restored.err.contains(s"restore: differs: t1.$topic: 10 record(s) were past the last stable offset at capture"), restored.err)
      // wait: still open after its bound, it stops where stop does, and says so; once it commits, everything.
      assertEquals(gaveUp.code, 0, gaveUp.err)
      assert(gaveUp.err.contains("still open after 1s") && gaveUp.err.contains("capture: 10 records from 1 topic(s)"), gaveUp.err)
      assertEquals(code, 0, waitErr)
      assert(waitErr.contains("capture: 20 records from 1 topic(s)") && waitErr.contains("they ended after"), waitErr)
      assert(!waitErr.contains("warning:"), waitErr)
    }
  }

  test("one cut: records written to a topic while an earlier one is read are left out; every topic ends where it stood at the start") {
    val (first, second) = (s"${TopologyFixture.unique("capture")}-cut-a", s"${TopologyFixture.unique("capture")}-cut-b")
    val archive = dir / "cut.zip"
    val release = dir / s"release-${BankFixture.id().take(8)}"
    def records(t: String, is: Range) =
      is.map(i => new org.apache.kafka.clients.producer.ProducerRecord[Array[Byte], Array[Byte]](t, 0, null, s"v$i".getBytes("UTF-8"))).toList
    def send(rs: List[org.apache.kafka.clients.producer.ProducerRecord[Array[Byte], Array[Byte]]]) = SandboxFixture.settings.flatMap(s =>
      ChunkProducer.resource(s.kafka, 30.seconds).use(p => p.send(fs2.Chunk.from(rs))((_, _, e) => if (e != null) throw e).flatten))
    for {
      settings <- SandboxFixture.settings
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a =>
        KafkaClients.await(a.createTopics(List(first, second).map(new org.apache.kafka.clients.admin.NewTopic(_, 1, 1.toShort)).asJava).all()))
      _ <- send(records(first, 0 until 5) ++ records(second, 0 until 5))
      p <- CliProcess.startWith(Map("BANKOPS_CAPTURE_PAUSE" -> release.toString), "capture", "--topic", first, "--topic", second, "--out",
        archive.toString)
      _ <- p.await(2.minutes, "hold after the first topic")(IO.blocking(os.read(p.err).contains("(BANKOPS_CAPTURE_PAUSE)")))
      // Written while the first topic's records are in the archive and the second's are not yet read.
      _ <- send(records(second, 5 until 8) ++ records(first, 5 until 8))
      _ <- IO.blocking(os.write(release, ""))
      code <- p.exited(2.minutes)
    } yield {
      val err = os.read(p.err)
      assertEquals(code, 0, err)
      assert(err.contains("capture: 10 records from 2 topic(s)"), err)
    }
  }

  test("--redact iban: masked in values and in the keys and headers that repeat it; a record it cannot decode left out and named") {
    val (bank, _, _) = fixture()
    val iban = "NL12OPEN0000000077"
    val change = s"""{"record":"BalanceChanged","key":"$iban","headers":[{"key":"account","value":"$iban"},{"key":"kind","value":"kept"}],""" +
      s""""value":{"iban":"$iban","new_balance":5,"changed_by":5,"from_to":"cash","description":"d"}}"""
    val (refused, kept) = (dir / "unredactable.zip", dir / "iban.zip")
    for {
      _ <- bank.send(List(change), to = Some(bank.balance))
      settings <- SandboxFixture.settings
      // Bytes that are not Avro: nothing in them can be masked.
      _ <- bankops.services.kafka.ChunkProducer.resource(settings.kafka, 30.seconds).use(p =>
        p.send(fs2.Chunk.singleton(new org.apache.kafka.clients.producer.ProducerRecord[Array[Byte], Array[Byte]](bank.balance, 0,
              "junk".getBytes("UTF-8"), s"not Avro: $iban".getBytes("UTF-8"))))((_, _, _) => ()).flatten)
      stopped <- SandboxFixture.cli("capture", "--topic", bank.balance, "--redact", "iban", "--out", refused.toString)
      r <- SandboxFixture.cli("capture", "--topic", bank.balance, "--redact", "iban", "--skip-unredactable", "--out", kept.toString)
      shown <- SandboxFixture.cli("capture", "show", kept.toString, "--records")
      // A filter that names the masked value: the manifest keeps it masked too.
      keyed <- SandboxFixture.cli("capture", "--topic", bank.balance, "--key", iban, "--redact", "iban", "--out", (dir / "keyed.zip").toString)
    } yield {
      assertEquals(keyed.code, 0, keyed.err)
      // Every file's content (the records files decompressed: a frame's bytes would hide a value left in clear).
      val keyedTexts = ArchiveEntries.read(dir / "keyed.zip").map(e => new String(e.bytes, "UTF-8"))
      assert(keyedTexts.exists(_.contains("\"--key ****\"")) && !keyedTexts.exists(_.contains(iban)), keyedTexts.mkString("\n").take(2000))
      assertEquals(stopped.code, 2, stopped.err)
      assert(stopped.err.contains("does not decode") && stopped.err.contains("(--skip-unredactable leaves such records out)"), stopped.err)
      assert(!os.exists(refused))
      assertEquals(r.code, 0, r.err)
      assert(r.err.contains(s"warning: capture: 1 record(s) left out: they do not decode, so --redact cannot mask them: ${bank.balance}-0@"), r.err)
      val lines = shown.outLines.map(io.circe.parser.parse(_).toOption.get.hcursor)
      val mine = lines.filter(_.downField("value").get[Long]("new_balance").toOption.contains(5L))
      assertEquals(mine.map(l => (l.get[String]("key").toOption, l.downField("value").get[String]("iban").toOption)),
        List((Some("****"), Some("****"))))
      assertEquals(mine.flatMap(_.downField("headers").focus).map(_.noSpaces),
        List("""[{"key":"account","value":"****"},{"key":"kind","value":"kept"}]"""))
      // Nowhere in the archive's files, nor in the bytes they hold as base64.
      val texts = ArchiveEntries.read(kept).map(e => new String(e.bytes, "UTF-8"))
      assert(texts.exists(_.contains("\"raw\":")), texts.mkString("\n").take(2000))
      val bytes = texts.flatMap(_.linesIterator).flatMap(io.circe.parser.parse(_).toOption).flatMap(j =>
        List("raw", "keyBase64").flatMap(j.hcursor.get[String](_).toOption)).map(b => new String(java.util.Base64.getDecoder.decode(b), "ISO-8859-1"))
      assert(bytes.nonEmpty)
      assert(!(texts ++ bytes).exists(t => t.contains(iban) || t.contains("junk")), (texts ++ bytes).mkString("\n").take(2000))
    }
  }

  test("a restore into a topic that holds records is refused, and nothing is written") {
    val (bank, archive, _) = fixture()
    for {
      first <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "r2.")
      ends <- SandboxFixture.settings.flatMap(s => KafkaClients.javaAdmin(s.kafka).use(EndOffsets.of(_, s"r2.${bank.commands}")))
      again <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "r2.")
      // --into-non-empty onto the archive's own records would write each twice: refused, counted.
      twice <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "r2.", "--into-non-empty")
      endsAfter <- SandboxFixture.settings.flatMap(s => KafkaClients.javaAdmin(s.kafka).use(EndOffsets.of(_, s"r2.${bank.commands}")))
      // Onto other records it writes after them, and says so.
      settings <- SandboxFixture.settings
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a =>
        KafkaClients.await(a.createTopics(List(new org.apache.kafka.clients.admin.NewTopic(s"r5.${bank.commands}", 3, 1.toShort)).asJava).all()))
      _ <- ChunkProducer.resource(settings.kafka, 30.seconds).use(p =>
        p.send(fs2.Chunk.singleton(new org.apache.kafka.clients.producer.ProducerRecord[Array[Byte], Array[Byte]](s"r5.${bank.commands}", 1,
              "other".getBytes, "not the archive's".getBytes)))((_, _, e) => if (e != null) throw e).flatten)
      mixed <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "r5.", "--into-non-empty")
      mixedEnds <- KafkaClients.javaAdmin(settings.kafka).use(EndOffsets.of(_, s"r5.${bank.commands}"))
    } yield {
      assertEquals(first.code, 0, first.err)
      assertEquals(again.code, 2, again.err)
      assert(again.err.contains(s"target topic r2.${bank.commands} holds 60 record(s): a restore never mixes into records it did not write"),
        again.err)
      assertEquals(twice.code, 2, twice.err)
      assert(twice.err.contains(s"--into-non-empty: target topic r2.${bank.commands} already holds 60 of the archive's record(s)"), twice.err)
      assertEquals(endsAfter, ends)
      assertEquals(mixed.code, 0, mixed.err)
      assert(mixed.err.contains(s"restore: differs: r5.${bank.commands}: held 1 record(s) before the restore, none of them the archive's"),
        mixed.err)
      assertEquals(mixedEnds.values.sum, 61L)
    }
  }

  /** The archive with one file's bytes changed by `f` (the manifest left as it was, unless `f` changes it). */
  private def rewritten(archive: os.Path, name: String)(f: (String, String) => String): os.Path =
    ArchiveEntries.write(dir / s"${name.replace('/', '-')}-${BankFixture.id().take(6)}.zip",
      ArchiveEntries.read(archive).map(e => e.withBytes(f(e.name, new String(e.bytes, "UTF-8")).getBytes("UTF-8"))))

  test("bad archives and windows: each one line naming what is wrong, exit 2, nothing restored or written") {
    val (bank, archive, _) = fixture()
    val bytes = os.read.bytes(archive)
    val truncated = dir / "truncated.zip"
    os.write.over(truncated, bytes.take(bytes.length / 2))
    val changed = rewritten(archive, "groups")((n, t) => if (n == "groups.json") t.replace("2", "3") else t)
    val newer = rewritten(archive, "manifest")((n, t) => if (n == "manifest.json") t.replace("\"version\" : 3", "\"version\" : 4") else t)
    // A records file's checksum is checked as restore first reads it: bytes changed in place (its size kept), read as
    // valid lines, or as a line that breaks the reading, are both the checksum's mismatch.
    val records = s"records/${bank.commands}.jsonl"
    val stored = s"$records.zst" // the checksum is the stored frame's
    val moved = rewritten(archive, "moved")((n, t) => if (n == records) t.replace("\"partition\":0", "\"partition\":1") else t)
    val broken = rewritten(archive, "broken")((n, t) => if (n == records) "[" + t.drop(1) else t)
    val cases = List(
      (List("restore", truncated.toString, "--topic-prefix", "bad1."), s"$truncated is not a bankops capture archive, or it is cut short"),
      (List("restore", changed.toString, "--topic-prefix", "bad2."), s"$changed: groups.json does not match its checksum in the manifest"),
      (List("restore", moved.toString, "--topic-prefix", "bad4."), s"$moved: $stored does not match its checksum in the manifest"),
      (List("restore", broken.toString, "--topic-prefix", "bad5."), s"$broken: $stored does not match its checksum in the manifest"),
      (List("restore", newer.toString, "--topic-prefix", "bad3."), s"$newer: archive format version 4 is newer than this bankops reads (3)"),
      (List("restore", dir.toString), s"archive $dir is a directory, not a file"),
      (List("restore", archive.toString, "--topic-prefix", ""), "an empty --topic-prefix without --rename restores into the captured topics"),
      (List("capture", "--topic", bank.commands, "--from", "end", "--out", (dir / "empty.zip").toString),
        s"no records in the window asked for (${bank.commands} from end to end); nothing captured"),
      (List("capture", "--topic", bank.commands, "--out", (dir / "no-such-dir" / "x.zip").toString), "--out"),
      // Checked before any service is asked: nothing listens on port 9.
      (List("capture", "--topic", bank.commands, "--out", dir.toString, "--bootstrap-server", "127.0.0.1:9"), s"--out $dir"),
      (List("capture", "--topic", bank.commands, "--out", ""), "--out: an empty path names no file"),
      (List("capture", "--topic", bank.commands, "--to", "offset:5", "--open-transactions", "read", "--out", (dir / "x.zip").toString),
        "--open-transactions: the window stops at offset:5, not at the end"),
      (List("capture", "--topic", bank.commands, "--open-transactions", "wait:soon", "--out", (dir / "x.zip").toString),
        "--open-transactions 'soon' is not a duration"),
      (List("restore", archive.toString, "--rename", "nosuch=x"), s"--rename nosuch: the archive has no topic nosuch (its topics: ${bank.commands}"),
      (List("restore", archive.toString, "--rename", s"${bank.commands}=x", "--rename", s"${bank.commands}=y"),
        s"--rename ${bank.commands} is given 2 times")
    )
    cases.traverse { case (args, fragment) => SandboxFixture.cli(args: _*).map(r => (args, fragment, r)) }.flatMap { results =>
      results.foreach { case (args, fragment, r) =>
        assertEquals(r.code, 2, s"${args.mkString(" ")}: ${r.err}")
        assert(r.err.contains(fragment), s"${args.mkString(" ")}: ${r.err}")
        assertEquals(r.err.linesIterator.count(_.startsWith("bankops: ")), 1, r.err)
      }
      assert(!os.exists(dir / "empty.zip") && !os.exists(dir / "no-such-dir"))
      SandboxFixture.settings.flatMap(s =>
        KafkaClients.javaAdmin(s.kafka).use(a =>
          bankops.services.kafka.ClusterTopics.names(a))).map(names => assert(!names.keys.exists(_.startsWith("bad")), names.keys.toString))
    }
  }

  test("a registry that refuses a schema: exit 2 naming it, no topic created, no record written") {
    val (bank, archive, _) = fixture()
    val subject = s"r4.${bank.commands}-nl.openweb.data.ConfirmMoneyTransfer"
    // The subject already holds a transfer with no fields: the captured one adds fields without defaults, which the
    // registry's BACKWARD level refuses.
    val empty = """{"type":"record","name":"ConfirmMoneyTransfer","namespace":"nl.openweb.data","fields":[]}"""
    for {
      settings <- SandboxFixture.settings
      _ <- bankops.services.registry.RegistryClient.resource(settings).use(c =>
        c.register(subject, empty) >> c.setSubjectCompatibility(subject, "BACKWARD"))
      r <- SandboxFixture.cli("restore", archive.toString, "--topic-prefix", "r4.")
      names <- KafkaClients.javaAdmin(settings.kafka).use(bankops.services.kafka.ClusterTopics.names)
    } yield {
      assertEquals(r.code, 2, r.err)
      assert(r.err.contains(s"refused schema id") && r.err.contains(s"under $subject"), r.err)
      assert(!names.contains(s"r4.${bank.commands}"), names.keys.toString)
    }
  }

  test("Ctrl-C or an error during a capture leaves nothing under the archive's name") {
    val (bank, _, _) = fixture()
    val out = dir / "refused.zip"
    // A registry that is not one: the capture fails after reading records, while the archive is being written.
    SandboxFixture.cli("capture", "--topic", bank.commands, "--out", out.toString, "--registry-url", "http://127.0.0.1:9").map { r =>
      assertEquals(r.code, 3, r.err)
      assert(!os.exists(out) && !os.exists(out / os.up / s".${out.last}.partial"), os.list(dir).toString)
    }
  }
}
